//! A small SVG writer: translatable texts, seat symbols and the icons of the board.
//!
//! Every text goes through [`Svg::text`], which writes the catalogue key and arguments for the
//! client to translate and the English template as the fallback content, so the document reads
//! well on its own and in any language.

use std::fmt::Write as _;

use sdk::{Catalogue, Message};

use sdk::svg::escape;

/// Rounds a coordinate for the document: one decimal is plenty and keeps the text short.
pub fn num(value: f32) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    if rounded.fract() == 0.0 {
        format!("{}", rounded as i64)
    } else {
        format!("{rounded:.1}")
    }
}

/// An SVG document being written.
pub struct Svg {
    out: String,
    english: &'static Catalogue,
}

impl Svg {
    /// Starts a document of this size, rounded up to whole units (a picture of it has whole
    /// pixels); `english` gives the fallback texts.
    pub fn new(width: f32, height: f32, english: &'static Catalogue) -> Svg {
        let (width, height) = (width.ceil(), height.ceil());
        let mut out = String::with_capacity(64 * 1024);
        let _ = write!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" font-family="sans-serif">"#,
            w = num(width),
            h = num(height)
        );
        Svg { out, english }
    }

    /// Appends raw markup.
    pub fn raw(&mut self, markup: &str) {
        self.out.push_str(markup);
    }

    /// A translatable text at (`x`, `y`); `attrs` are extra attributes (size, anchor, class).
    pub fn text(&mut self, x: f32, y: f32, message: &Message, attrs: &str) {
        let fallback = self
            .english
            .render(message, &|seat| format!("Player {}", seat + 1));
        let _ = write!(
            self.out,
            r#"<text x="{x}" y="{y}" {attrs} {translatable}>{fallback}</text>"#,
            x = num(x),
            y = num(y),
            translatable = sdk::svg::message_attributes(message),
            fallback = escape(&fallback),
        );
    }

    /// A number (or another text that needs no translation) at (`x`, `y`).
    pub fn number(&mut self, x: f32, y: f32, value: impl std::fmt::Display, attrs: &str) {
        let _ = write!(
            self.out,
            r#"<text x="{}" y="{}" {attrs}>{}</text>"#,
            num(x),
            num(y),
            escape(&value.to_string())
        );
    }

    /// Closes the document.
    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }
}

/// The symbol of a seat (● ▲ ■ ◆ ★ for seats 0 to 4, then again), centred on (`cx`, `cy`) with
/// radius about `r`, so owners stay apart without colour.
pub fn seat_symbol(seat: u32, cx: f32, cy: f32, r: f32, attrs: &str) -> String {
    let point = |angle_deg: f32, radius: f32| {
        let a = angle_deg.to_radians();
        format!(
            "{},{}",
            num(cx + radius * a.cos()),
            num(cy + radius * a.sin())
        )
    };
    match seat % 5 {
        0 => format!(
            r#"<circle cx="{}" cy="{}" r="{}" {attrs}/>"#,
            num(cx),
            num(cy),
            num(r * 0.9)
        ),
        1 => format!(
            r#"<polygon points="{} {} {}" {attrs}/>"#,
            point(-90.0, r * 1.1),
            point(30.0, r * 1.1),
            point(150.0, r * 1.1)
        ),
        2 => format!(
            r#"<rect x="{}" y="{}" width="{s}" height="{s}" {attrs}/>"#,
            num(cx - r * 0.8),
            num(cy - r * 0.8),
            s = num(r * 1.6)
        ),
        3 => format!(
            r#"<polygon points="{} {} {} {}" {attrs}/>"#,
            point(-90.0, r),
            point(0.0, r),
            point(90.0, r),
            point(180.0, r)
        ),
        _ => {
            let points: Vec<String> = (0..10)
                .map(|i| {
                    point(
                        -90.0 + 36.0 * i as f32,
                        if i % 2 == 0 { r * 1.1 } else { r * 0.45 },
                    )
                })
                .collect();
            format!(r#"<polygon points="{}" {attrs}/>"#, points.join(" "))
        }
    }
}

/// A building icon of size about `s`, centred on (`cx`, `cy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Icon {
    /// A castle: a keep with battlements.
    Castle,
    /// A temple: a pagoda roof.
    Temple,
    /// A Nō theatre: a mask.
    Theatre,
    /// Rice: a bowl with grains.
    Rice,
    /// A war chest.
    Chest,
    /// Armies: three cubes.
    Armies,
    /// Battle: crossed swords.
    Battle,
    /// A revolt marker.
    Revolt,
}

/// Draws an icon.
pub fn icon(kind: Icon, cx: f32, cy: f32, s: f32) -> String {
    let h = s / 2.0;
    let p = |dx: f32, dy: f32| format!("{},{}", num(cx + dx * h), num(cy + dy * h));
    match kind {
        Icon::Castle => format!(
            r##"<path d="M{} L{} L{} L{} L{} L{} L{} L{} L{} L{} L{} L{} Z" fill="#4a4a4a" stroke="#1d1d1f" stroke-width="0.8"/><rect x="{}" y="{}" width="{}" height="{}" fill="#f4ecd8"/>"##,
            p(-0.9, 0.9),
            p(-0.9, -0.8),
            p(-0.5, -0.8),
            p(-0.5, -0.45),
            p(-0.15, -0.45),
            p(-0.15, -0.8),
            p(0.15, -0.8),
            p(0.15, -0.45),
            p(0.5, -0.45),
            p(0.5, -0.8),
            p(0.9, -0.8),
            p(0.9, 0.9),
            num(cx - 0.2 * h),
            num(cy + 0.3 * h),
            num(0.4 * h),
            num(0.6 * h)
        ),
        Icon::Temple => format!(
            r##"<path d="M{} L{} L{} Z" fill="#8c1c13"/><rect x="{}" y="{}" width="{}" height="{}" fill="#8c1c13"/><path d="M{} L{} L{} Z" fill="#8c1c13"/>"##,
            p(-1.0, -0.1),
            p(0.0, -1.0),
            p(1.0, -0.1),
            num(cx - 0.55 * h),
            num(cy - 0.1 * h),
            num(1.1 * h),
            num(1.0 * h),
            p(-0.8, 0.35),
            p(0.0, -0.15),
            p(0.8, 0.35)
        ),
        Icon::Theatre => format!(
            r##"<ellipse cx="{}" cy="{}" rx="{}" ry="{}" fill="#fbf8ef" stroke="#1d1d1f" stroke-width="1"/><ellipse cx="{}" cy="{}" rx="{}" ry="{}" fill="#1d1d1f"/><ellipse cx="{}" cy="{}" rx="{}" ry="{}" fill="#1d1d1f"/><path d="M{} Q{} {}" stroke="#8c1c13" stroke-width="1.2" fill="none"/>"##,
            num(cx),
            num(cy),
            num(0.75 * h),
            num(0.95 * h),
            num(cx - 0.32 * h),
            num(cy - 0.2 * h),
            num(0.18 * h),
            num(0.1 * h),
            num(cx + 0.32 * h),
            num(cy - 0.2 * h),
            num(0.18 * h),
            num(0.1 * h),
            p(-0.3, 0.45),
            p(0.0, 0.65),
            p(0.3, 0.45)
        ),
        Icon::Rice => format!(
            r##"<path d="M{} Q{} {} Z" fill="#f7f3e3" stroke="#5c7a29" stroke-width="1.2"/><circle cx="{}" cy="{}" r="{}" fill="#f7f3e3" stroke="#5c7a29" stroke-width="0.8"/><circle cx="{}" cy="{}" r="{}" fill="#f7f3e3" stroke="#5c7a29" stroke-width="0.8"/><circle cx="{}" cy="{}" r="{}" fill="#f7f3e3" stroke="#5c7a29" stroke-width="0.8"/>"##,
            p(-1.0, 0.0),
            p(0.0, 1.5),
            p(1.0, 0.0),
            num(cx - 0.4 * h),
            num(cy - 0.25 * h),
            num(0.28 * h),
            num(cx),
            num(cy - 0.45 * h),
            num(0.28 * h),
            num(cx + 0.4 * h),
            num(cy - 0.25 * h),
            num(0.28 * h)
        ),
        Icon::Chest => format!(
            r##"<rect x="{}" y="{}" width="{}" height="{}" rx="{}" fill="#8b5a2b" stroke="#3d2612" stroke-width="1"/><path d="M{} L{}" stroke="#3d2612" stroke-width="1"/><rect x="{}" y="{}" width="{}" height="{}" fill="#e8c547"/>"##,
            num(cx - h),
            num(cy - 0.7 * h),
            num(2.0 * h),
            num(1.5 * h),
            num(0.2 * h),
            p(-1.0, -0.15),
            p(1.0, -0.15),
            num(cx - 0.18 * h),
            num(cy - 0.3 * h),
            num(0.36 * h),
            num(0.4 * h)
        ),
        Icon::Armies => {
            let cube = |dx: f32, dy: f32| {
                format!(
                    r##"<rect x="{}" y="{}" width="{s}" height="{s}" fill="#6b6b6b" stroke="#1d1d1f" stroke-width="0.8"/>"##,
                    num(cx + dx * h),
                    num(cy + dy * h),
                    s = num(0.8 * h)
                )
            };
            format!("{}{}{}", cube(-0.9, 0.1), cube(0.1, 0.1), cube(-0.4, -0.8))
        }
        Icon::Battle => format!(
            r##"<path d="M{} L{} M{} L{}" stroke="#3a3a3a" stroke-width="{w}" stroke-linecap="round"/><path d="M{} L{} M{} L{}" stroke="#8c1c13" stroke-width="{w}" stroke-linecap="round"/>"##,
            p(-0.9, 0.9),
            p(0.8, -0.8),
            p(0.9, 0.9),
            p(-0.8, -0.8),
            p(-0.95, 0.35),
            p(-0.35, 0.95),
            p(0.95, 0.35),
            p(0.35, 0.95),
            w = num((0.18 * h).max(1.2))
        ),
        Icon::Revolt => {
            let points: Vec<String> = (0..8)
                .map(|i| {
                    p(
                        (22.5 + 45.0 * i as f32).to_radians().cos(),
                        (22.5 + 45.0 * i as f32).to_radians().sin(),
                    )
                })
                .collect();
            format!(
                r##"<polygon points="{}" fill="#1d1d1f" stroke="#8c1c13" stroke-width="1.5"/>"##,
                points.join(" ")
            )
        }
    }
}
