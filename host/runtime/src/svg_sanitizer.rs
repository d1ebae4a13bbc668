//! A ruleset's SVG, rebuilt from an allowlist before it leaves the host.
//!
//! A ruleset is untrusted code, and its drawing is shown inside the player's page, next to that
//! page's seat tokens. So the host never forwards the ruleset's text: it parses it as XML and
//! writes a new document holding only what is known to be inert. Elements and attributes are
//! compared by namespace and local name (a prefix is the author's choice, the namespace is what a
//! browser acts on); CSS goes through a CSS tokenizer and is rebuilt from allowed selectors,
//! properties and values; the only URL that survives is a fragment of the same document
//! (`#pattern-1`). Anything else is left out: a board loses decoration, never the player's
//! safety. The web client checks again (`web-ui/src/board.js`), as a second wall.

use std::fmt::Write as _;

const SVG_NS: &str = "http://www.w3.org/2000/svg";
const XLINK_NS: &str = "http://www.w3.org/1999/xlink";

/// How deep elements may nest; deeper ones are left out (no real board comes close).
const MAX_DEPTH: usize = 64;
/// How many bytes the parts of one board may hold together, as the ruleset drew them. The shipped
/// rulesets' largest boards hold about an eighth of this; a board beyond it is not sanitised
/// at all (sanitising costs the host time in proportion to the text, outside the ruleset's fuel).
pub const MAX_BOARD_BYTES: usize = 1 << 20;
/// How many XML nodes (elements, texts, comments) the parts of one board may hold together:
/// about ten times the largest shipped board.
pub const MAX_BOARD_NODES: u32 = 16_000;

/// SVG elements that draw, group or define something and can do nothing else.
const ELEMENTS: &[&str] = &[
    "svg",
    "g",
    "defs",
    "symbol",
    "use",
    "switch",
    "title",
    "desc",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polyline",
    "polygon",
    "path",
    "text",
    "tspan",
    "textPath",
    "marker",
    "pattern",
    "linearGradient",
    "radialGradient",
    "stop",
    "clipPath",
    "mask",
    "style",
    "filter",
    "feBlend",
    "feColorMatrix",
    "feComposite",
    "feDropShadow",
    "feFlood",
    "feGaussianBlur",
    "feMerge",
    "feMergeNode",
    "feMorphology",
    "feOffset",
];

/// Elements dropped while their children are kept: a link would navigate the page.
const UNWRAPPED: &[&str] = &["a"];

/// Elements whose text is content.
const TEXT_ELEMENTS: &[&str] = &["text", "tspan", "textPath", "title", "desc"];

/// Attributes (in no namespace) that describe geometry, structure or accessibility.
const ATTRIBUTES: &[&str] = &[
    "id",
    "class",
    "transform",
    "role",
    "tabindex",
    "focusable",
    "lang",
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "cx",
    "cy",
    "r",
    "rx",
    "ry",
    "fx",
    "fy",
    "fr",
    "width",
    "height",
    "d",
    "points",
    "pathLength",
    "viewBox",
    "preserveAspectRatio",
    "dx",
    "dy",
    "rotate",
    "textLength",
    "lengthAdjust",
    "startOffset",
    "method",
    "spacing",
    "refX",
    "refY",
    "markerWidth",
    "markerHeight",
    "markerUnits",
    "orient",
    "patternUnits",
    "patternContentUnits",
    "patternTransform",
    "gradientUnits",
    "gradientTransform",
    "spreadMethod",
    "offset",
    "clipPathUnits",
    "maskUnits",
    "maskContentUnits",
    "filterUnits",
    "primitiveUnits",
    "in",
    "in2",
    "result",
    "stdDeviation",
    "mode",
    "operator",
    "k1",
    "k2",
    "k3",
    "k4",
    "values",
    "type",
    "radius",
    "version",
];

/// Properties allowed both as presentation attributes and in CSS: paint, text and visibility.
/// Nothing that positions a box (`position`, `inset`, `z-index`, sizes in CSS), so a drawing
/// cannot leave its frame or cover the page.
const PROPERTIES: &[&str] = &[
    "fill",
    "fill-opacity",
    "fill-rule",
    "stroke",
    "stroke-width",
    "stroke-opacity",
    "stroke-dasharray",
    "stroke-dashoffset",
    "stroke-linecap",
    "stroke-linejoin",
    "stroke-miterlimit",
    "opacity",
    "font-family",
    "font-size",
    "font-weight",
    "font-style",
    "font-variant",
    "text-anchor",
    "dominant-baseline",
    "alignment-baseline",
    "baseline-shift",
    "letter-spacing",
    "word-spacing",
    "text-decoration",
    "visibility",
    "display",
    "color",
    "stop-color",
    "stop-opacity",
    "flood-color",
    "flood-opacity",
    "paint-order",
    "marker-start",
    "marker-mid",
    "marker-end",
    "clip-path",
    "clip-rule",
    "mask",
    "filter",
    "pointer-events",
    "cursor",
    "vector-effect",
    "shape-rendering",
    "text-rendering",
    "white-space",
    "writing-mode",
    "color-interpolation-filters",
];

/// Functions a value may call: colours and transforms; `url` only with a fragment.
const FUNCTIONS: &[&str] = &[
    "rgb",
    "rgba",
    "hsl",
    "hsla",
    "url",
    "translate",
    "translatex",
    "translatey",
    "rotate",
    "scale",
    "scalex",
    "scaley",
    "matrix",
    "skewx",
    "skewy",
];

/// Pseudo-classes a style sheet may use; `:host` and friends reach outside the drawing.
const PSEUDO_CLASSES: &[&str] = &["hover", "focus", "focus-visible", "first-child"];

/// Why a drawing could not be used at all.
#[derive(Debug, thiserror::Error)]
pub enum SvgRefused {
    /// The text is not well-formed XML (or uses a DTD, which is refused).
    #[error("the drawing is not well-formed XML: {0}")]
    NotXml(String),
    /// The document's root is not an SVG `<svg>` element.
    #[error("the drawing's root element is not an SVG <svg>")]
    NotSvg,
    /// The board's parts hold more text than [`MAX_BOARD_BYTES`].
    #[error("the board is {0} bytes long; the limit is {MAX_BOARD_BYTES}")]
    TooLong(usize),
    /// The board's parts hold more nodes than [`MAX_BOARD_NODES`].
    #[error("the board has more than {MAX_BOARD_NODES} XML nodes")]
    TooManyNodes,
}

/// A whole board as a ruleset drew it, each part's SVG rebuilt from the allowlist. A part that
/// is not SVG at all is shown empty (and logged), never a failed view; a board beyond
/// [`MAX_BOARD_BYTES`] or [`MAX_BOARD_NODES`] is shown empty, every part of it.
pub fn sanitize_board(ruleset: &str, mut parts: Vec<sdk::BoardPart>) -> Vec<sdk::BoardPart> {
    let mut budget = BoardBudget::new();
    let mut too_large = false;
    for part in &mut parts {
        let drawn = std::mem::take(&mut part.svg);
        if too_large {
            continue;
        }
        match budget.sanitize(&drawn) {
            Ok(clean) => part.svg = clean,
            Err(refused) => {
                tracing::warn!("ruleset `{ruleset}`, part `{}`: {refused}", part.id);
                too_large = matches!(refused, SvgRefused::TooLong(_) | SvgRefused::TooManyNodes);
            }
        }
    }
    if too_large {
        for part in &mut parts {
            part.svg.clear();
        }
    }
    parts
}

/// Rebuilds `text` as an SVG document holding only allowed elements, attributes and styles,
/// within the caps of a whole board.
pub fn sanitize_svg(text: &str) -> Result<String, SvgRefused> {
    let mut board = BoardBudget::new();
    board.sanitize(text)
}

/// What is left of one board's caps while its parts are sanitised one after another.
#[derive(Debug)]
pub struct BoardBudget {
    bytes: usize,
    nodes: u32,
}

impl Default for BoardBudget {
    fn default() -> Self {
        BoardBudget::new()
    }
}

impl BoardBudget {
    /// The caps of a whole board, [`MAX_BOARD_BYTES`] and [`MAX_BOARD_NODES`].
    pub fn new() -> BoardBudget {
        BoardBudget {
            bytes: MAX_BOARD_BYTES,
            nodes: MAX_BOARD_NODES,
        }
    }

    /// Rebuilds one part of the board, counting its text and nodes against what is left. Text
    /// over the limit is refused before it is parsed, and parsing stops at the node limit.
    pub fn sanitize(&mut self, text: &str) -> Result<String, SvgRefused> {
        self.bytes = self
            .bytes
            .checked_sub(text.len())
            .ok_or(SvgRefused::TooLong(
                MAX_BOARD_BYTES - self.bytes + text.len(),
            ))?;
        let options = roxmltree::ParsingOptions {
            allow_dtd: false,
            // roxmltree counts the document's root node too.
            nodes_limit: self.nodes.saturating_add(1),
            ..roxmltree::ParsingOptions::default()
        };
        let document =
            roxmltree::Document::parse_with_options(text, options).map_err(
                |error| match error {
                    roxmltree::Error::NodesLimitReached => SvgRefused::TooManyNodes,
                    other => SvgRefused::NotXml(other.to_string()),
                },
            )?;
        let used =
            u32::try_from(document.descendants().count().saturating_sub(1)).unwrap_or(u32::MAX);
        self.nodes = self.nodes.saturating_sub(used);
        let root = document.root_element();
        if root.tag_name().namespace() != Some(SVG_NS) || root.tag_name().name() != "svg" {
            return Err(SvgRefused::NotSvg);
        }
        let mut out = String::with_capacity(text.len());
        write_element(&mut out, root, 0, true);
        Ok(out)
    }
}

fn write_element(out: &mut String, node: roxmltree::Node<'_, '_>, depth: usize, root: bool) {
    if depth > MAX_DEPTH {
        return;
    }
    let name = node.tag_name();
    let in_svg = name.namespace() == Some(SVG_NS);
    if in_svg && UNWRAPPED.contains(&name.name()) {
        write_children(out, node, "", depth);
        return;
    }
    let Some(&local) = ELEMENTS
        .iter()
        .find(|allowed| in_svg && **allowed == name.name())
    else {
        // Unknown, foreign-namespace and active elements go with everything inside them.
        return;
    };
    if local == "style" {
        let sheet: String = node.children().filter_map(|child| child.text()).collect();
        let clean = sanitize_style_sheet(&sheet);
        if !clean.is_empty() {
            out.push_str("<style>");
            escape_into(out, &clean, false);
            out.push_str("</style>");
        }
        return;
    }
    out.push('<');
    out.push_str(local);
    if root {
        let _ = write!(out, " xmlns=\"{SVG_NS}\"");
    }
    write_attributes(out, node);
    out.push('>');
    write_children(out, node, local, depth);
    let _ = write!(out, "</{local}>");
}

fn write_children(out: &mut String, node: roxmltree::Node<'_, '_>, parent: &str, depth: usize) {
    for child in node.children() {
        if child.is_element() {
            write_element(out, child, depth + 1, false);
        } else if let Some(text) = child.text()
            && TEXT_ELEMENTS.contains(&parent)
        {
            escape_into(out, text, false);
        }
    }
}

fn write_attributes(out: &mut String, node: roxmltree::Node<'_, '_>) {
    for attribute in node.attributes() {
        let value = attribute.value();
        let clean = match (attribute.namespace(), attribute.name()) {
            // Both spellings of a link become SVG 2's plain `href`, and only within the document.
            (None | Some(XLINK_NS), "href") => {
                is_fragment(value).then(|| ("href", value.to_owned()))
            }
            (Some(_), _) => None,
            (None, "style") => {
                let declarations = sanitize_declarations(value);
                (!declarations.is_empty()).then_some(("style", declarations))
            }
            (None, name) if is_inert_data(name) => Some((name, value.to_owned())),
            (None, name) => ATTRIBUTES
                .iter()
                .chain(PROPERTIES)
                .find(|allowed| **allowed == name)
                .filter(|_| is_safe_value(value))
                .map(|allowed| (*allowed, value.to_owned())),
        };
        if let Some((name, value)) = clean {
            let _ = write!(out, " {name}=\"");
            escape_into(out, &value, true);
            out.push('"');
        }
    }
}

/// `data-*` and `aria-*` attributes: text the client reads (`data-msg`, `data-choice`) or a
/// screen reader speaks; no browser acts on them.
fn is_inert_data(name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix("data-")
        .or_else(|| name.strip_prefix("aria-"))
    else {
        return false;
    };
    !rest.is_empty()
        && rest
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// A reference to an element of the same document: `#` and a plain id.
fn is_fragment(value: &str) -> bool {
    value.strip_prefix('#').is_some_and(|id| {
        !id.is_empty()
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
    })
}

/// Whether a value (of an attribute or a CSS declaration) is plain data: no CSS escape, no
/// at-sign, no markup, and no function but colours, transforms and `url(#fragment)`.
fn is_safe_value(value: &str) -> bool {
    if value
        .chars()
        .any(|c| matches!(c, '\\' | '@' | '<' | '>' | '{' | '}' | ';') || c.is_control())
    {
        return false;
    }
    let mut rest = value;
    while let Some(open) = rest.find('(') {
        let before = &rest[..open];
        let function = before
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if !FUNCTIONS.contains(&function.as_str()) {
            return false;
        }
        let Some(close) = rest[open..].find(')') else {
            return false;
        };
        let inside = &rest[open + 1..open + close];
        if inside.contains('(') {
            return false;
        }
        if function == "url" {
            let target = inside.trim().trim_matches(|c| c == '"' || c == '\'');
            if !is_fragment(target) {
                return false;
            }
        }
        rest = &rest[open + close + 1..];
    }
    true
}

/// A `style` attribute rebuilt from its allowed declarations; empty when none is left.
fn sanitize_declarations(text: &str) -> String {
    // CSS escapes (`\75 rl(`) exist to spell what a filter looks for another way: refuse them.
    if text.contains('\\') {
        return String::new();
    }
    let mut out = String::new();
    for declaration in simplecss::DeclarationTokenizer::from(text) {
        let name = declaration.name.to_ascii_lowercase();
        let value = declaration.value.trim();
        if PROPERTIES.contains(&name.as_str()) && is_safe_value(value) {
            if !out.is_empty() {
                out.push(';');
            }
            let _ = write!(out, "{name}:{value}");
        }
    }
    out
}

/// A style sheet rebuilt from its allowed rules; empty when none is left. At-rules (`@import`,
/// `@font-face`) and escapes refuse the whole sheet: a board never needs them.
pub fn sanitize_style_sheet(text: &str) -> String {
    if text.contains('\\') || text.contains('@') || text.contains('<') {
        return String::new();
    }
    let text = strip_comments(text);
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(open) = rest.find('{') {
        let prelude = &rest[..open];
        let Some(length) = rest[open + 1..].find('}') else {
            return String::new();
        };
        let block = &rest[open + 1..open + 1 + length];
        if block.contains('{') || prelude.contains('}') {
            return String::new();
        }
        rest = &rest[open + 1 + length + 1..];
        let selectors: Vec<String> = prelude.split(',').filter_map(sanitize_selector).collect();
        let declarations = sanitize_declarations(block);
        if !selectors.is_empty() && !declarations.is_empty() {
            let _ = write!(out, "{}{{{declarations}}}", selectors.join(","));
        }
    }
    if !rest.trim().is_empty() {
        return String::new();
    }
    out
}

fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        match rest[start + 2..].find("*/") {
            Some(end) => rest = &rest[start + 2 + end + 2..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// One selector rebuilt from its tokens, or `None` when any part of it is not allowed.
fn sanitize_selector(text: &str) -> Option<String> {
    use simplecss::SelectorToken as Token;
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let plain = |name: &str| {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    let mut out = String::new();
    for token in simplecss::SelectorTokenizer::from(text) {
        match token.ok()? {
            Token::UniversalSelector => out.push('*'),
            Token::TypeSelector(name) if ELEMENTS.contains(&name) => out.push_str(name),
            Token::ClassSelector(name) if plain(name) => {
                let _ = write!(out, ".{name}");
            }
            Token::IdSelector(name) if plain(name) => {
                let _ = write!(out, "#{name}");
            }
            Token::PseudoClass(name) if PSEUDO_CLASSES.contains(&name) => {
                let _ = write!(out, ":{name}");
            }
            Token::AttributeSelector(name, simplecss::AttributeOperator::Exists) if plain(name) => {
                let _ = write!(out, "[{name}]");
            }
            Token::AttributeSelector(name, simplecss::AttributeOperator::Matches(value))
                if plain(name) && plain(value) =>
            {
                let _ = write!(out, "[{name}=\"{value}\"]");
            }
            Token::DescendantCombinator => out.push(' '),
            Token::ChildCombinator => out.push('>'),
            Token::AdjacentCombinator => out.push('+'),
            _ => return None,
        }
    }
    (!out.trim().is_empty()).then_some(out)
}

fn escape_into(out: &mut String, text: &str, attribute: bool) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(body: &str) -> String {
        let text = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">{body}</svg>"#
        );
        sanitize_svg(&text).unwrap()
    }

    /// What a board legitimately uses survives: classes, a style sheet, patterns and markers by
    /// fragment, translatable texts and clickable choices.
    #[test]
    fn a_real_board_keeps_its_styles_references_texts_and_choices() {
        let out = clean(
            r##"<style>.seat-0{fill:#d55e00}.title{font-weight:700;font-size:15px} g > .x:hover{stroke:rgb(1,2,3)}</style><defs><pattern id="p1" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="#fff"/></pattern><marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" orient="auto-start-reverse"><path d="M0,0 L10,5 Z"/></marker></defs><g data-choice="3" class="seat-0"><rect x="1" y="2" width="3" height="4" fill="url(#p1)" style="stroke: #000; stroke-width: 2"/><line marker-end="url(#arrow)" x1="0" y1="0" x2="5" y2="5" transform="translate(1,2) rotate(45)"/><text data-msg="province.x" data-args='{"n":1}' font-size="11">Ise &amp; Shima</text><use xlink:href="#p1"/></g>"##,
        );
        for kept in [
            ".seat-0{fill:#d55e00}",
            ".title{font-weight:700;font-size:15px}",
            // `>` is escaped in the XML text; the browser reads it back as the child combinator.
            "g&gt;.x:hover{stroke:rgb(1,2,3)}",
            r##"fill="url(#p1)""##,
            r##"marker-end="url(#arrow)""##,
            r#"style="stroke:#000;stroke-width:2""#,
            r#"data-choice="3""#,
            r#"data-msg="province.x""#,
            "data-args=\"{&quot;n&quot;:1}\"",
            "Ise &amp; Shima",
            r##"<use href="#p1">"##,
            r#"transform="translate(1,2) rotate(45)""#,
        ] {
            assert!(out.contains(kept), "kept {kept}: {out}");
        }
        assert!(out.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">"#));
    }

    #[test]
    fn regression_an_xlink_href_under_another_prefix_ran_script_when_clicked() {
        let out = clean(
            r#"<a xmlns:x="http://www.w3.org/1999/xlink" x:href="javascript:parent.pwned=1"><rect width="9" height="9"/></a>"#,
        );
        assert!(!out.contains("javascript"), "{out}");
        assert!(!out.contains("<a"), "{out}");
        assert!(out.contains("<rect"), "the link's drawing stays: {out}");
    }

    #[test]
    fn regression_an_image_under_another_xlink_prefix_fetched_from_outside() {
        let out = clean(
            r#"<image xmlns:x="http://www.w3.org/1999/xlink" x:href="http://127.0.0.2/i.png" width="5" height="5"/><image href="data:image/png;base64,AAAA"/>"#,
        );
        assert!(!out.contains("image") && !out.contains("127.0.0.2") && !out.contains("data:"));
    }

    #[test]
    fn regression_css_escapes_spelled_url_and_import_past_the_filter() {
        let out = clean(
            r#"<style>@\69mport "http://127.0.0.2/a.css"; .a{fill:red}</style><style>.b{fill:\75 rl(http://127.0.0.2/x)}</style><rect style="fill:\75 rl(http://127.0.0.2/y)" width="1" height="1"/>"#,
        );
        assert!(!out.contains("127.0.0.2"), "{out}");
        assert!(!out.contains('\\'), "{out}");
        assert!(!out.contains("style"), "{out}");
    }

    #[test]
    fn regression_image_set_fetched_from_outside() {
        let out = clean(
            r#"<style>.a{fill:image-set("http://127.0.0.2/a.png" 1x)}</style><rect style="fill:image-set('http://127.0.0.2/b.png' 1x)" width="1" height="1"/><rect fill="image-set(url(http://127.0.0.2/c.png) 1x)"/>"#,
        );
        assert!(
            !out.contains("127.0.0.2") && !out.contains("image-set"),
            "{out}"
        );
    }

    #[test]
    fn regression_an_html_img_srcset_in_the_drawing_fetched_from_outside() {
        let out = clean(
            r#"<html:img xmlns:html="http://www.w3.org/1999/xhtml" srcset="http://127.0.0.2/a.png 1x" src="x"/><foreignObject><div xmlns="http://www.w3.org/1999/xhtml"><img src="http://127.0.0.2/b"/></div></foreignObject>"#,
        );
        assert!(!out.contains("127.0.0.2") && !out.contains("img"), "{out}");
    }

    #[test]
    fn regression_a_host_style_rule_covered_the_whole_page() {
        let out = clean(
            r#"<style>:host{position:fixed;inset:0;z-index:99999} svg{position:fixed;top:0;left:0;width:100vw;height:100vh;z-index:9} .ok{fill:blue}</style>"#,
        );
        assert!(
            !out.contains("host") && !out.contains("position") && !out.contains("z-index"),
            "{out}"
        );
        assert!(out.contains(".ok{fill:blue}"), "{out}");
    }

    #[test]
    fn scripts_handlers_and_active_elements_are_left_out() {
        let out = clean(
            r#"<script>parent.pwned=1</script><rect onclick="parent.pwned=2" onload="x" width="1" height="1"/><animate attributeName="href" to="javascript:1"/><set attributeName="onclick" to="x"/><iframe src="x"/><feImage href="http://127.0.0.2/"/><use href="http://127.0.0.2/s.svg#a"/>"#,
        );
        for gone in [
            "script",
            "onclick",
            "onload",
            "animate",
            "<set",
            "iframe",
            "feImage",
            "127.0.0.2",
            "javascript",
        ] {
            assert!(!out.contains(gone), "{gone}: {out}");
        }
    }

    #[test]
    fn a_non_svg_root_or_a_dtd_is_refused() {
        assert!(matches!(
            sanitize_svg("<html xmlns=\"http://www.w3.org/1999/xhtml\"/>"),
            Err(SvgRefused::NotSvg)
        ));
        assert!(matches!(sanitize_svg("<svg>"), Err(SvgRefused::NotXml(_))));
        let bomb = r#"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>"#;
        assert!(matches!(sanitize_svg(bomb), Err(SvgRefused::NotXml(_))));
    }

    #[test]
    fn values_with_foreign_urls_or_unknown_functions_are_dropped() {
        assert!(is_safe_value("rgb(1, 2, 3)"));
        assert!(is_safe_value("url(#a-1)"));
        assert!(is_safe_value("url('#a')"));
        assert!(!is_safe_value("url(http://127.0.0.2/)"));
        assert!(!is_safe_value("URL(//127.0.0.2/)"));
        assert!(!is_safe_value("expression(alert(1))"));
        assert!(!is_safe_value("var(--x)"));
        assert!(!is_safe_value("red;background:url(x)"));
    }

    #[test]
    fn deeply_nested_drawings_are_cut_without_overflowing_the_stack() {
        let body = format!("{}<rect/>{}", "<g>".repeat(200), "</g>".repeat(200));
        let out = clean(&body);
        assert!(out.matches("<g>").count() <= MAX_DEPTH);
    }

    #[test]
    fn a_board_over_its_caps_is_refused_before_it_is_parsed_whole() {
        let shapes = |count: usize| {
            format!(
                r#"<svg xmlns="{SVG_NS}">{}</svg>"#,
                r#"<rect width="1" height="1"/>"#.repeat(count)
            )
        };
        // Within the caps, in two parts that share them.
        let mut board = BoardBudget::new();
        let half = shapes(MAX_BOARD_NODES as usize / 2 - 1);
        assert!(board.sanitize(&half).is_ok());
        assert!(board.sanitize(&half).is_ok());
        // The third part is over the node cap of the whole board.
        assert!(matches!(
            board.sanitize(&half),
            Err(SvgRefused::TooManyNodes)
        ));
        // Over the byte cap: refused by its length alone.
        let long = format!(
            r#"<svg xmlns="{SVG_NS}"><desc>{}</desc></svg>"#,
            "x".repeat(MAX_BOARD_BYTES)
        );
        assert!(matches!(
            BoardBudget::new().sanitize(&long),
            Err(SvgRefused::TooLong(_))
        ));
    }
}
