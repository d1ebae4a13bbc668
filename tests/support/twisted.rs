//! The secret-draw game with one twist each, for server tests of what a misbehaving ruleset must
//! never achieve: [`HostileBoard`] draws every SVG attack a review found against the web client,
//! [`FailsAfterMove`] fails once right after an action was applied (the moment a bot's move once
//! left the game in memory ahead of the database), [`EarlyResult`] claims a result while the
//! game goes on, and [`FailingRender`] panics whenever it draws (and when asked for its map
//! editor schema); [`HugeBoard`] draws about 7 MiB and describes a map editor schema far over the
//! host's bounds.

use std::sync::atomic::{AtomicBool, Ordering};

use sdk::{GameResult, MapEditor, PendingDecision, Viewer};

use super::secret_draw::{DrawGame, SecretDraw, Twist};

/// The drawing of [`HostileBoard`]: each line is one attack; 127.0.0.2 stands for a host other
/// than the server.
pub const ATTACKS: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 100" onload="window.pwned=1">
<script>window.pwned=2</script>
<a xmlns:x="http://www.w3.org/1999/xlink" x:href="javascript:window.pwned=3"><rect id="bait" width="100" height="100" fill="url(#kept)"/></a>
<image xmlns:x="http://www.w3.org/1999/xlink" x:href="http://127.0.0.2/image.png" width="5" height="5"/>
<style>@\69mport "http://127.0.0.2/import.css"; .e{fill:\75 rl(http://127.0.0.2/escaped)}</style>
<rect width="5" height="5" style="fill:\75 rl(http://127.0.0.2/escaped-attr)"/>
<rect width="5" height="5" style="fill:image-set('http://127.0.0.2/set.png' 1x)"/>
<html:img xmlns:html="http://www.w3.org/1999/xhtml" srcset="http://127.0.0.2/srcset.png 1x"/>
<style>:host{position:fixed;inset:0;z-index:99999} .kept{fill:blue}</style>
<foreignObject><iframe xmlns="http://www.w3.org/1999/xhtml" src="http://127.0.0.2/frame"/></foreignObject>
<text class="kept" data-msg="plan.prompt">Plan</text>
</svg>"##;

/// Draws [`ATTACKS`] for every viewer.
pub struct HostileBoardTwist;

impl Twist for HostileBoardTwist {
    const ID: &'static str = "hostile-board";

    fn render(_game: &DrawGame<Self>, _viewer: Viewer) -> String {
        ATTACKS.to_owned()
    }
}

/// The secret-draw game drawn with every SVG attack.
pub type HostileBoard = SecretDraw<HostileBoardTwist>;

/// Set by a test: the next look at the pending decisions of a game that has applied exactly one
/// action fails (once).
pub static FAIL_AFTER_FIRST_MOVE: AtomicBool = AtomicBool::new(false);

/// Fails in `pending` once, when armed, right after the first action.
pub struct FailsAfterMoveTwist;

impl Twist for FailsAfterMoveTwist {
    const ID: &'static str = "fails-after-move";

    fn pending(game: &DrawGame<Self>, applied: u32) -> Vec<PendingDecision> {
        if applied == 1 && FAIL_AFTER_FIRST_MOVE.swap(false, Ordering::SeqCst) {
            panic!("failing on purpose right after the first action");
        }
        game.plans_owed()
    }
}

/// The secret-draw game failing once after its first action.
pub type FailsAfterMove = SecretDraw<FailsAfterMoveTwist>;

/// Returns a result from the first move on, while decisions are still pending.
pub struct EarlyResultTwist;

impl Twist for EarlyResultTwist {
    const ID: &'static str = "early-result";

    fn result(game: &DrawGame<Self>) -> Option<GameResult> {
        game.final_result().or_else(|| {
            Some(GameResult {
                placings: Vec::new(),
                breakdown: Vec::new(),
                summary: sdk::Message::new("score.total"),
            })
        })
    }
}

/// The secret-draw game claiming a result before it is over.
pub type EarlyResult = SecretDraw<EarlyResultTwist>;

/// Panics in every `render`.
pub struct FailingRenderTwist;

impl Twist for FailingRenderTwist {
    const ID: &'static str = "failing-render";

    fn render(_game: &DrawGame<Self>, _viewer: Viewer) -> String {
        panic!("failing on purpose while drawing");
    }

    fn map_editor() -> Option<MapEditor> {
        panic!("failing on purpose while describing the map editor");
    }
}

/// The secret-draw game that cannot draw its board.
pub type FailingRender = SecretDraw<FailingRenderTwist>;

/// About 7 MiB of real shapes: what a ruleset can draw within the 8 MiB the runtime lets any one
/// answer be, and what the sanitiser once spent up to 0.66 s per viewer on.
pub fn huge_board() -> String {
    let mut svg =
        String::from(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1000 1000">"#);
    let mut n = 0u32;
    while svg.len() < 7 << 20 {
        let (x, y) = (n % 1000, (n / 1000) % 1000);
        svg.push_str(&format!(
            r##"<rect x="{x}" y="{y}" width="1" height="1" fill="#a{:02x}"/>"##,
            n % 256
        ));
        n += 1;
    }
    svg.push_str("</svg>");
    svg
}

/// Draws [`huge_board`] for every viewer.
pub struct HugeBoardTwist;

impl Twist for HugeBoardTwist {
    const ID: &'static str = "huge-board";

    fn render(_game: &DrawGame<Self>, _viewer: Viewer) -> String {
        huge_board()
    }

    /// A schema whose one field allows 50,000 values of 60 bytes (3 MiB): under the runtime's
    /// output limits, far over the editor's.
    fn map_editor() -> Option<MapEditor> {
        let field = sdk::EditorField::new("colour", sdk::FieldKind::String, "A colour.")
            .values((0..50_000).map(|i| format!("{i:060}")));
        Some(MapEditor::with_places(
            sdk::EditorPlaces::new("place", "place.").field(field),
        ))
    }
}

/// The secret-draw game drawn with about 7 MiB of shapes.
pub type HugeBoard = SecretDraw<HugeBoardTwist>;
