//! `tenka map check` and `tenka map render` on the shipped Shogun maps and a broken one, through
//! the real component: the check is the ruleset's own validation, reached through the contract.

use std::path::PathBuf;

use crate::runtime_support::{run_ok, shogun_wasm, tenka, workspace_root};

/// A `tenka` command that loads only the Shogun component built for the tests.
fn tenka_with_shogun() -> std::process::Command {
    let component = shogun_wasm();
    let dir = component
        .source()
        .and_then(|p| p.parent())
        .expect("the component came from a file")
        .to_path_buf();
    let mut command = tenka();
    command
        .current_dir(workspace_root())
        .arg("--rulesets")
        .arg(dir);
    command
}

/// Writes `text` to `file` and runs `tenka map check` on it.
fn write_and_check(file: &std::path::Path, text: impl AsRef<[u8]>) -> std::process::Output {
    std::fs::write(file, text).unwrap();
    tenka_with_shogun()
        .args(["map", "check"])
        .arg(file)
        .output()
        .unwrap()
}

#[test]
fn the_shipped_maps_and_the_example_pass_the_check() {
    for map in [
        "maps/shogun/sun.toml",
        "maps/shogun/moon.toml",
        "maps/shogun/examples/five-isles.toml",
    ] {
        let output = tenka_with_shogun()
            .args(["map", "check", map])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{map}: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!stdout.contains(": error:"), "{map}: {stdout}");
    }
}

#[test]
fn a_map_with_a_one_way_border_fails_with_its_line() {
    let map = "rulesets/shogun/tests/maps/one-way-border.toml";
    let text = std::fs::read_to_string(workspace_root().join(map)).unwrap();
    // The fixture lies outside maps/shogun, so the ruleset comes from the map or the flag.
    let output = tenka_with_shogun()
        .args(["map", "check", "--ruleset", "shogun", map])
        .output()
        .unwrap();
    assert!(
        !output.status.success(),
        "a one-way border must fail the check"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let finding = stdout
        .lines()
        .find(|l| l.contains("one-way border"))
        .expect("the finding is printed");
    // `file:line:col: error: ...`, and the line is the one that lists the border.
    let mut parts = finding.splitn(4, ':');
    assert_eq!(parts.next(), Some(map));
    let line: usize = parts.next().unwrap().parse().unwrap();
    assert!(parts.next().unwrap().parse::<usize>().unwrap() >= 1);
    assert!(
        parts.next().unwrap().starts_with(" error: one-way border"),
        "{finding}"
    );
    let listed = text.lines().nth(line - 1).unwrap();
    assert!(listed.contains("borders"), "line {line} is `{listed}`");
}

#[test]
fn a_map_renders_to_a_png_board_of_the_svg_size() {
    let dir = workspace_root().join("target/test-caches");
    std::fs::create_dir_all(&dir).unwrap();
    let (svg_path, png_path) = (
        dir.join("map-render-isles.svg"),
        dir.join("map-render-isles.png"),
    );
    for out in [&svg_path, &png_path] {
        run_ok(
            tenka_with_shogun()
                .args([
                    "map",
                    "render",
                    "maps/shogun/examples/five-isles.toml",
                    "-o",
                ])
                .arg(out),
        );
    }
    let png = std::fs::read(&png_path).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG file");
    let header = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    let (width, height) = (header(16), header(20));
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let attribute = |name: &str| -> u32 {
        let start = svg.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        let value = &svg[start..start + svg[start..].find('"').unwrap()];
        value.parse::<f32>().unwrap().ceil() as u32
    };
    assert_eq!((width, height), (attribute("width"), attribute("height")));
    // A blank image of that size compresses to a few kilobytes; the board does not.
    assert!(
        png.len() > 50_000,
        "the board is drawn: {} bytes",
        png.len()
    );
}

#[test]
fn a_map_renders_to_an_svg_board() {
    let out: PathBuf = workspace_root().join("target/test-caches/map-render-sun.svg");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    run_ok(
        tenka_with_shogun()
            .args(["map", "render", "maps/shogun/sun.toml", "-o"])
            .arg(&out),
    );
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{}",
        &svg[..60.min(svg.len())]
    );
    assert!(
        svg.contains("id=\"province-kai\""),
        "every province is drawn"
    );
}

/// A folder of the test's own under `target/test-caches`, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = workspace_root().join("target/test-caches").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The sun map with a table header left open halfway, and the line number of that header;
/// without its `ruleset = "shogun"` line unless `keep_ruleset_line`.
fn sun_with_a_syntax_error(keep_ruleset_line: bool) -> (String, u32) {
    let sun = std::fs::read_to_string(workspace_root().join("maps/shogun/sun.toml")).unwrap();
    let mut lines: Vec<&str> = sun
        .lines()
        .map(|line| {
            if !keep_ruleset_line && line.starts_with("ruleset") {
                "# (no ruleset line)"
            } else {
                line
            }
        })
        .collect();
    let at = lines.len() / 2;
    lines.insert(at, "[broken");
    (lines.join("\n") + "\n", at as u32 + 1)
}

/// `file:line:col: error: ...` of the first line printed, as (file, line, column, message).
fn first_finding(stdout: &str) -> (String, u32, u32, String) {
    let first = stdout.lines().next().expect("a finding is printed");
    let mut parts = first.splitn(4, ':');
    let file = parts.next().unwrap().to_owned();
    let line = parts.next().unwrap().parse().unwrap();
    let column = parts.next().unwrap().parse().unwrap();
    (file, line, column, parts.next().unwrap().trim().to_owned())
}

#[test]
fn regression_a_syntax_error_was_answered_cannot_tell_which_ruleset() {
    // A map outside any ruleset's folder that names its ruleset under `[map]`: the TOML does
    // not parse, but the ruleset line still does.
    let dir = scratch("map-syntax-declared");
    let (text, broken_line) = sun_with_a_syntax_error(true);
    let file = dir.join("my-board.toml");
    let output = write_and_check(&file, text);
    assert!(!output.status.success(), "a syntax error fails the check");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(!stderr.contains("cannot tell which ruleset"), "{stderr}");
    let (printed, line, column, message) = first_finding(&stdout);
    assert_eq!(printed, file.display().to_string());
    assert_eq!(line, broken_line, "{stdout}");
    assert!(column >= 1, "{stdout}");
    assert!(message.starts_with("error: TOML syntax:"), "{stdout}");
    assert!(
        stderr.contains("not valid TOML") && stderr.contains("shogun"),
        "{stderr}"
    );
}

#[test]
fn regression_a_syntax_error_in_a_ruleset_folder_names_the_error_and_the_ruleset() {
    // `maps/shogun/...` (here a folder named after the ruleset under the test's scratch
    // folder): the folder tells the ruleset.
    let dir = scratch("map-syntax-folder").join("shogun");
    std::fs::create_dir_all(&dir).unwrap();
    let (text, broken_line) = sun_with_a_syntax_error(false);
    let file = dir.join("broken.toml");
    let output = write_and_check(&file, text);
    assert!(!output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let (_, line, _, message) = first_finding(&stdout);
    assert_eq!(line, broken_line, "{stdout}");
    assert!(message.contains("TOML syntax"), "{stdout}");
    assert!(stderr.contains("shogun"), "{stderr}");
}

#[test]
fn a_syntax_error_is_said_even_when_no_ruleset_is_known() {
    let dir = scratch("map-syntax-unknown");
    let file = dir.join("loose.toml");
    let output = write_and_check(&file, "name = \"A board\"\nplaces = [1, 2\n");
    assert!(!output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    let (_, line, column, message) = first_finding(&stdout);
    assert!(message.starts_with("error: TOML syntax:"), "{stdout}");
    assert!(line >= 2 && column >= 1, "{stdout}");
}

#[test]
fn a_ruleset_line_names_the_ruleset_of_a_valid_map_outside_its_folder() {
    // The sun map says `ruleset = "shogun"` under `[map]`; its copy lies in no ruleset's folder.
    let dir = scratch("map-declared-ruleset");
    let sun = std::fs::read_to_string(workspace_root().join("maps/shogun/sun.toml")).unwrap();
    let file = dir.join("copy.toml");
    let output = write_and_check(&file, sun);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("ok for shogun"), "{stderr}");
}

#[test]
fn regression_render_of_a_map_with_errors_did_not_list_them() {
    let map = "rulesets/shogun/tests/maps/one-way-border.toml";
    let check = tenka_with_shogun()
        .args(["map", "check", "--ruleset", "shogun", map])
        .output()
        .unwrap();
    let out = scratch("map-render-errors").join("board.svg");
    let render = tenka_with_shogun()
        .args(["map", "render", "--ruleset", "shogun", map, "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!render.status.success(), "a map with errors is not drawn");
    assert!(!out.exists(), "nothing is written");
    let listed = String::from_utf8_lossy(&render.stdout);
    assert!(listed.contains(": error: one-way border"), "{listed}");
    // The same findings, in the same form, as `map check` prints.
    assert_eq!(listed, String::from_utf8_lossy(&check.stdout));
    let stderr = String::from_utf8_lossy(&render.stderr);
    assert!(stderr.contains("error(s)"), "{stderr}");
}
