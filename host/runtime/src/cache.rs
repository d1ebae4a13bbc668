//! Precompiled components, cached on disk by content hash.
//!
//! Compiling a component takes a tenth of a second or more; loading its precompiled artifact
//! takes well under a millisecond. An artifact is only valid for the wasmtime version and the
//! engine settings that produced it, so the file name carries a fingerprint of both next to the
//! component's SHA-256.
//!
//! Loading an artifact skips every check wasmtime makes on WebAssembly, so only files this cache
//! wrote are ever loaded, and each one's own SHA-256 is stored beside it and checked before use:
//! a damaged artifact is recompiled, never trusted.
//!
//! The digest catches damage, not an attacker: whoever may write the folder may write both files,
//! and an artifact is native code the host runs. So the folder is trusted exactly like the `tenka`
//! binary, and the cache says so: on Unix, a folder (or artifact) that others than its owner may
//! write is not used at all (components are compiled in memory instead, with a warning).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// The wasmtime release the host is built with, part of every cache key.
const WASMTIME_RELEASE: &str = "wasmtime-48";

/// What the cache did for one load.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheOutcome {
    /// A valid artifact was found and loaded.
    Hit,
    /// No artifact existed: the component was compiled and the artifact written.
    Miss,
    /// An artifact existed but failed its check: it was discarded and the component recompiled.
    Recompiled,
    /// Caching is off: the component was compiled in memory.
    Disabled,
    /// The runtime had already loaded this exact component: nothing was compiled or read.
    AlreadyLoaded,
}

/// A directory of precompiled artifacts.
#[derive(Clone, Debug)]
pub struct ArtifactCache {
    dir: Option<PathBuf>,
}

fn engine_fingerprint(engine: &Engine) -> String {
    // The compatibility hash covers the compiler settings and wasm features; it is hashed here
    // with a fixed-key hasher so the file name is stable for one build of the host.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    format!("{WASMTIME_RELEASE}-{:016x}", hasher.finish())
}

impl ArtifactCache {
    /// A cache in `dir`, or no cache at all with `None`.
    pub fn new(dir: Option<PathBuf>) -> ArtifactCache {
        ArtifactCache { dir }
    }

    /// The artifact file for a component with this content hash.
    pub fn artifact_path(&self, engine: &Engine, content_hash: &str) -> Option<PathBuf> {
        self.dir.as_ref().map(|dir| {
            dir.join(format!(
                "{content_hash}-{}.cwasm",
                engine_fingerprint(engine)
            ))
        })
    }

    /// The compiled component for `bytes`, from the cache when a valid artifact is there.
    pub fn load_or_compile(
        &self,
        engine: &Engine,
        bytes: &[u8],
        content_hash: &str,
    ) -> Result<(Component, CacheOutcome)> {
        let Some(path) = self
            .artifact_path(engine, content_hash)
            .filter(|path| is_private(path.parent().unwrap_or(path)))
        else {
            return Ok((Component::new(engine, bytes)?, CacheOutcome::Disabled));
        };
        let digest_path = path.with_extension("sha256");
        let mut outcome = CacheOutcome::Miss;
        if path.exists() {
            match read_checked(engine, &path, &digest_path) {
                Some(component) => return Ok((component, CacheOutcome::Hit)),
                None => outcome = CacheOutcome::Recompiled,
            }
        }
        let component = Component::new(engine, bytes)
            .map_err(anyhow::Error::from)
            .context("failed to compile the component")?;
        // A cache that cannot be written only costs time on the next load.
        if let Err(error) = write_artifact(&component, &path, &digest_path) {
            tracing::warn!("could not write the artifact {}: {error:#}", path.display());
        }
        Ok((component, outcome))
    }
}

/// Whether only its owner may write `path` (a missing one counts as private: the cache creates
/// it). Anyone else who could write the cache could make the host run their code.
#[cfg(unix)]
fn is_private(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    let Ok(metadata) = std::fs::metadata(path) else {
        return true;
    };
    let writable_by_others = metadata.permissions().mode() & 0o022 != 0;
    if writable_by_others {
        tracing::warn!(
            "the artifact cache {} may be written by others than its owner: not using it \
             (make it writable by the server's user only)",
            path.display()
        );
    }
    !writable_by_others
}

#[cfg(not(unix))]
fn is_private(_path: &Path) -> bool {
    true
}

/// Gives `path` the Unix `mode` (nothing elsewhere).
fn make_private(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, mode);
        Ok(())
    }
}

/// Loads an artifact only if its digest file matches its bytes.
fn read_checked(engine: &Engine, path: &Path, digest_path: &Path) -> Option<Component> {
    if !is_private(path) || !is_private(digest_path) {
        return None;
    }
    let artifact = std::fs::read(path).ok()?;
    let expected = std::fs::read_to_string(digest_path).ok()?;
    if hex::encode(Sha256::digest(&artifact)) != expected.trim() {
        tracing::warn!("artifact {} is damaged: recompiling", path.display());
        return None;
    }
    // SAFETY: the bytes are an artifact this cache wrote (the file is named by its component's
    // hash and the engine's fingerprint, and its own SHA-256 matches the one written with it),
    // produced by `Component::serialize` of an engine with the same settings.
    match unsafe { Component::deserialize(engine, &artifact) } {
        Ok(component) => Some(component),
        Err(error) => {
            tracing::warn!("artifact {} was refused: {error}", path.display());
            None
        }
    }
}

fn write_artifact(component: &Component, path: &Path, digest_path: &Path) -> Result<()> {
    let dir = path.parent().context("artifact path has no directory")?;
    if !dir.exists() {
        std::fs::create_dir_all(dir)?;
        make_private(dir, 0o755)?;
    }
    let artifact = component.serialize()?;
    let digest = hex::encode(Sha256::digest(&artifact));
    // Write to temporary names and rename, so a reader never sees half a file.
    let unique = format!("{}.{}", std::process::id(), rand_suffix());
    let tmp_artifact = path.with_extension(format!("cwasm.{unique}"));
    let tmp_digest = digest_path.with_extension(format!("sha256.{unique}"));
    std::fs::write(&tmp_artifact, &artifact)?;
    std::fs::write(&tmp_digest, &digest)?;
    // Whatever the process's umask, what the cache writes is writable by its owner only, so
    // it passes the cache's own check (`is_private`) when read back.
    make_private(&tmp_artifact, 0o644)?;
    make_private(&tmp_digest, 0o644)?;
    std::fs::rename(&tmp_digest, digest_path)?;
    std::fs::rename(&tmp_artifact, path)?;
    Ok(())
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    COUNTER.fetch_add(1, Ordering::Relaxed)
}
