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
