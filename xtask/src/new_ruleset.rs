//! `cargo xtask new-ruleset NAME`: a new ruleset crate from the template in `xtask/template/`,
//! which builds, lists, simulates and plays before its author writes a rule.
//!
//! The template is a ruleset of its own, written with placeholder names that are Rust names
//! (`template-ruleset`, `template_ruleset`, `TemplateRuleset`, `Template ruleset`), so it
//! compiles as it is: the tests below run the SDK's conformance suite on it, and hold the glue of
//! the committed example made from it (Goofspiel: `Cargo.toml`, `src/lib.rs`,
//! `tests/conformance.rs`) to the template's, so neither can drift without a failing test.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// A ruleset's name in each of the forms the template needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Names {
    /// The folder, the package and the ruleset's id: `my-game`.
    pub kebab: String,
    /// The crate as Rust names it: `my_game`.
    pub snake: String,
    /// The ruleset's type: `MyGame`.
    pub camel: String,
    /// The name players read until the author changes it: `My game`.
    pub title: String,
}

/// Names the compiler or the workspace already gives a meaning to.
const RESERVED: [&str; 8] = [
    "alloc",
    "core",
    "proc-macro",
    "std",
    "test",
    "tests",
    "xtask",
    "host",
];

/// Rust's keywords, strict and reserved: a crate cannot be named by one.
const KEYWORDS: [&str; 51] = [
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv",
    "typeof", "unsized", "virtual", "yield", "try", "gen",
];

impl Names {
    /// Each placeholder of the template with the form of this name that fills it.
    fn fills(&self) -> [(&'static str, &str); 4] {
        [
            ("template-ruleset", &self.kebab),
            ("template_ruleset", &self.snake),
            ("TemplateRuleset", &self.camel),
            ("Template ruleset", &self.title),
        ]
    }

    /// The forms of `name`, or why it cannot name a ruleset: lowercase ASCII words of letters and
    /// digits joined by single hyphens, starting with a letter, at most 40 characters, not a
    /// keyword, a name the workspace or the template already uses, or a test-only name.
    pub fn of(name: &str, root: &Path) -> Result<Names> {
        let shape_ok = !name.is_empty()
            && name.len() <= 40
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name.split('-').all(|word| {
                !word.is_empty()
                    && word
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            });
        if !shape_ok {
            bail!(
                "`{name}` cannot name a ruleset: use lowercase letters and digits, words joined by \
                 single hyphens, starting with a letter and at most 40 characters (like `my-game`)"
            );
        }
        if name.ends_with("-for-tests") {
            bail!(
                "`{name}` ends in `-for-tests`, which marks a ruleset `cargo xtask build` leaves out"
            );
        }
        let snake = name.replace('-', "_");
        if KEYWORDS.contains(&snake.as_str()) || RESERVED.contains(&name) {
            bail!("`{name}` is a name Rust or the workspace already uses; choose another");
        }
        if workspace_dependencies(root)?
            .iter()
            .any(|dependency| dependency == name || dependency.replace('-', "_") == snake)
        {
            bail!("`{name}` is the name of a crate the workspace depends on; choose another");
        }
        let camel: String = name
            .split('-')
            .map(|word| word[..1].to_ascii_uppercase() + &word[1..])
            .collect();
        let words = template_code_words(root)?;
        if let Some(word) = [&snake, &camel]
            .into_iter()
            .find(|form| words.contains(*form))
        {
            let used = if word == name {
                String::new()
            } else {
                format!(" (as `{word}`)")
            };
            bail!("`{name}` is a name the template's code already uses{used}; choose another");
        }
        let title = name[..1].to_ascii_uppercase() + &name[1..].replace('-', " ");
        Ok(Names {
            kebab: name.to_owned(),
            snake,
            camel,
            title,
        })
    }
}

/// The keys of `[workspace.dependencies]` in the root manifest.
fn workspace_dependencies(root: &Path) -> Result<Vec<String>> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))
        .context("failed to read the root Cargo.toml")?;
    let mut names = Vec::new();
    let mut inside = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == "[workspace.dependencies]";
        } else if inside && let Some((name, _)) = line.split_once('=') {
            names.push(name.trim().to_owned());
        }
    }
    Ok(names)
}

/// Every identifier in the code of the template's Rust files (comments left out).
fn template_code_words(root: &Path) -> Result<std::collections::BTreeSet<String>> {
    let mut words = std::collections::BTreeSet::new();
    for (relative, text) in template_files(root)? {
        if !relative.ends_with(".rs") {
            continue;
        }
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            words.extend(
                code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .filter(|word| !word.is_empty())
                    .map(str::to_owned),
            );
        }
    }
    Ok(words)
}

/// The template's folder.
fn template_dir(root: &Path) -> PathBuf {
    root.join("xtask/template")
}

/// Every file of the template, by its path under the template folder (with `/`), and its text.
fn template_files(root: &Path) -> Result<Vec<(String, String)>> {
    let mut files = Vec::new();
    let mut folders = vec![template_dir(root)];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .with_context(|| format!("failed to list {}", folder.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let relative = path
                .strip_prefix(template_dir(root))
                .expect("under the template")
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("failed to read {}", path.display()))?;
            files.push((relative, text));
        }
    }
    files.sort();
    Ok(files)
}

/// Where a template file goes in the workspace: the crate under `rulesets/<name>/`, the
/// variants under `maps/<name>/variants/`.
fn destination(relative: &str, names: &Names) -> String {
    let crate_dir = format!("rulesets/{}", names.kebab);
    match relative {
        "Cargo.toml.in" => format!("{crate_dir}/Cargo.toml"),
        _ => match relative.strip_prefix("variants/") {
            Some(file) => format!("maps/{}/variants/{file}", names.kebab),
            None => format!("{crate_dir}/{relative}"),
        },
    }
}

/// `text` with every placeholder replaced by the form of the name it stands for.
pub fn render(text: &str, names: &Names) -> String {
    names
        .fills()
        .iter()
        .fold(text.to_owned(), |text, (placeholder, form)| {
            text.replace(placeholder, form)
        })
}

/// The files of a new ruleset named `names`, by path under the workspace root, and their text.
pub fn rendered(root: &Path, names: &Names) -> Result<Vec<(String, String)>> {
    Ok(template_files(root)?
        .into_iter()
        .map(|(relative, text)| (destination(&relative, names), render(&text, names)))
        .collect())
}

/// Writes a new ruleset named `name` under `root` and returns the files written. Refuses a bad
/// name, and a ruleset or maps folder of that name that exists already, before writing anything.
pub fn create(root: &Path, name: &str) -> Result<Vec<String>> {
    let names = Names::of(name, root)?;
    for folder in [format!("rulesets/{name}"), format!("maps/{name}")] {
        if root.join(&folder).exists() {
            bail!("{folder} exists already: choose another name, or remove it first");
        }
    }
    let files = rendered(root, &names)?;
    for (path, text) in &files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a file in a folder"))?;
        std::fs::write(&path, text)
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    Ok(files.into_iter().map(|(path, _)| path).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        crate::root()
    }

    /// The text with whitespace and the commas rustfmt adds or drops when it wraps left out, so
    /// that a file reformatted after the names changed length still compares equal.
    fn normalised(text: &str) -> String {
        let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        squeezed
            .replace(",)", ")")
            .replace(",]", "]")
            .replace(",}", "}")
    }

    /// The glue of a file: what the author does not write. The leading `//!` lines of `lib.rs`
    /// and the `description` of `Cargo.toml` are the author's.
    fn glue(path: &str, text: &str) -> String {
        let kept: Vec<&str> = if path.ends_with("lib.rs") {
            text.lines()
                .skip_while(|line| line.starts_with("//!"))
                .collect()
        } else {
            text.lines()
                .filter(|line| !line.starts_with("description ="))
                .collect()
        };
        normalised(&kept.join("\n"))
    }

    /// The files of a ruleset made from the template that stay as the template wrote them.
    const GLUE: [&str; 3] = ["Cargo.toml", "src/lib.rs", "tests/conformance.rs"];

    #[test]
    fn the_committed_example_keeps_the_template_glue() {
        let names = Names::of("goofspiel", &root()).expect("a good name");
        let files = rendered(&root(), &names).expect("the template renders");
        for file in GLUE {
            let path = format!("rulesets/goofspiel/{file}");
            let template = &files
                .iter()
                .find(|(p, _)| *p == path)
                .expect("a glue file")
                .1;
            let committed =
                std::fs::read_to_string(root().join(&path)).expect("the example's file");
            assert_eq!(
                glue(file, &committed),
                glue(file, template),
                "{path} is no longer what `cargo xtask new-ruleset goofspiel` writes: change the \
                 template (xtask/template/) and the example together"
            );
        }
    }

    #[test]
    fn bad_names_are_refused_with_the_reason() {
        for (name, reason) in [
            ("", "lowercase letters"),
            ("MyGame", "lowercase letters"),
            ("my_game", "lowercase letters"),
            ("9-lives", "starting with a letter"),
            ("my--game", "single hyphens"),
            ("my-game-", "single hyphens"),
            ("big-board-for-tests", "-for-tests"),
            ("type", "Rust or the workspace"),
            ("xtask", "Rust or the workspace"),
            ("serde", "crate the workspace depends on"),
            ("tenka-game", "crate the workspace depends on"),
            ("rules", "the template's code"),
            ("state", "the template's code"),
        ] {
            let error = Names::of(name, &root()).expect_err(name).to_string();
            assert!(error.contains(reason), "`{name}`: {error}");
        }
    }

    #[test]
    fn a_name_gives_every_form() {
        let names = Names::of("pure-strategy-2", &root()).expect("a good name");
        assert_eq!(
            names,
            Names {
                kebab: "pure-strategy-2".into(),
                snake: "pure_strategy_2".into(),
                camel: "PureStrategy2".into(),
                title: "Pure strategy 2".into(),
            }
        );
    }

    /// A scratch copy of what `create` reads: the root manifest and the template.
    fn scratch_root(test: &str) -> PathBuf {
        let scratch = root()
            .join("target/tmp")
            .join(format!("new-ruleset-{test}"));
        let _ = std::fs::remove_dir_all(&scratch);
        std::fs::create_dir_all(scratch.join("xtask")).expect("a scratch folder");
        std::fs::copy(root().join("Cargo.toml"), scratch.join("Cargo.toml")).expect("the manifest");
        let mut folders = vec![template_dir(&root())];
        while let Some(folder) = folders.pop() {
            let target = scratch.join(folder.strip_prefix(root()).expect("under the root"));
            std::fs::create_dir_all(&target).expect("a template folder");
            for entry in std::fs::read_dir(&folder).expect("the template") {
                let path = entry.expect("a template entry").path();
                if path.is_dir() {
                    folders.push(path);
                } else {
                    std::fs::copy(&path, target.join(path.file_name().expect("a file")))
                        .expect("a template file");
                }
            }
        }
        scratch
    }

    #[test]
    fn a_new_ruleset_is_written_whole_with_no_placeholder_left() {
        let scratch = scratch_root("whole");
        let written = create(&scratch, "pure-strategy").expect("a new ruleset");
        for expected in [
            "rulesets/pure-strategy/Cargo.toml",
            "rulesets/pure-strategy/src/lib.rs",
            "rulesets/pure-strategy/src/rules.rs",
            "rulesets/pure-strategy/src/tell.rs",
            "rulesets/pure-strategy/src/board.rs",
            "rulesets/pure-strategy/tests/conformance.rs",
            "maps/pure-strategy/variants/long.toml",
        ] {
            assert!(
                written.iter().any(|path| path == expected),
                "{expected} in {written:?}"
            );
        }
        for language in ["en", "de", "es", "ro", "ru"] {
            let catalogue = format!("rulesets/pure-strategy/i18n/{language}.toml");
            assert!(written.contains(&catalogue), "{catalogue}");
        }
        let names = Names::of("pure-strategy", &scratch).expect("a good name");
        for path in &written {
            let text = std::fs::read_to_string(scratch.join(path)).expect("a written file");
            for (placeholder, _) in names.fills() {
                assert!(
                    !text.contains(placeholder),
                    "{path} still says `{placeholder}`"
                );
            }
        }
        let manifest = std::fs::read_to_string(scratch.join("rulesets/pure-strategy/Cargo.toml"))
            .expect("the manifest");
        assert!(manifest.contains("name = \"pure-strategy\""));
        let lib = std::fs::read_to_string(scratch.join("rulesets/pure-strategy/src/lib.rs"))
            .expect("lib.rs");
        assert!(lib.contains("pub struct PureStrategy;") && lib.contains("\"Pure strategy\""));
        let test =
            std::fs::read_to_string(scratch.join("rulesets/pure-strategy/tests/conformance.rs"))
                .expect("the test");
        assert!(test.contains("type Tested = pure_strategy::PureStrategy;"));
        std::fs::remove_dir_all(&scratch).expect("the scratch folder goes");
    }

    #[test]
    fn an_existing_folder_is_refused_and_nothing_is_written() {
        let scratch = scratch_root("existing");
        std::fs::create_dir_all(scratch.join("maps/pure-strategy")).expect("a maps folder");
        let error = create(&scratch, "pure-strategy")
            .expect_err("the maps folder exists")
            .to_string();
        assert!(
            error.contains("maps/pure-strategy exists already"),
            "{error}"
        );
        assert!(
            !scratch.join("rulesets/pure-strategy").exists(),
            "nothing is written"
        );
        std::fs::create_dir_all(scratch.join("rulesets/other")).expect("a ruleset folder");
        let error = create(&scratch, "other")
            .expect_err("the ruleset folder exists")
            .to_string();
        assert!(error.contains("rulesets/other exists already"), "{error}");
        std::fs::remove_dir_all(&scratch).expect("the scratch folder goes");
    }

    /// The template as it is, placeholder names and all, through the SDK's conformance suite: its
    /// placeholder game must stay a legal game that ends, whatever the SDK becomes.
    #[test]
    fn the_template_game_conforms() {
        use crate::template_ruleset::TemplateRuleset;
        let variants = template_dir(&root()).join("variants");
        let suite = sdk::testing::Conformance::every_seat_count_and_variant::<TemplateRuleset>;
        suite(variants).run::<TemplateRuleset>();
    }
}
