//! Typed failures of ruleset calls, so a caller (the server above all) can tell "this ruleset
//! misbehaved" from "the host is full" without reading messages.
//!
//! Every call into a running game ([`crate::RunningGame`]) and every stateless call of a
//! [`crate::LoadedRuleset`] answers a [`CallError`]: the ruleset failed, or the host is full. A
//! rejected action is not an error of the call: it is the call's answer (`Err(Rejection)` inside
//! `Ok`). Where one of them has to travel inside an `anyhow::Error` (loading a stored game),
//! [`failure_of`] and [`capacity_exhausted`] find it again.

use std::fmt;

use serde::Serialize;

/// Which limit stopped a ruleset call, or what else went wrong in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FailureCause {
    /// The call used all its fuel (the deterministic limit on work).
    Fuel {
        /// The fuel the call was given.
        fuel: u64,
    },
    /// The call ran past its wall-clock deadline (a safety net beside fuel, for work fuel does
    /// not count, such as bulk memory copies).
    Deadline {
        /// The deadline, in milliseconds.
        millis: u64,
    },
    /// The game's memories and tables together would have grown past its budget.
    Memory {
        /// The budget, in bytes.
        bytes: usize,
    },
    /// The WebAssembly call stack was exhausted (recursion too deep).
    StackOverflow,
    /// The ruleset panicked.
    Panic {
        /// The panic message, when the ruleset wrote one.
        message: Option<String>,
    },
    /// Another trap: `unreachable`, an out-of-bounds access, a division by zero...
    Trap {
        /// The trap, as wasmtime names it.
        trap: String,
    },
    /// The call returned more than the host accepts (bytes or entries).
    Output {
        /// What was too large.
        detail: String,
    },
    /// Anything else: a host service misused (`random.below(0)`), a snapshot the ruleset could
    /// not restore, an instantiation refused.
    Fault {
        /// What happened.
        detail: String,
    },
}

impl FailureCause {
    /// A short name of the cause, stable for logs and APIs: `fuel`, `deadline`, `memory`,
    /// `stack-overflow`, `panic`, `trap`, `output` or `fault`.
    pub fn kind(&self) -> &'static str {
        match self {
            FailureCause::Fuel { .. } => "fuel",
            FailureCause::Deadline { .. } => "deadline",
            FailureCause::Memory { .. } => "memory",
            FailureCause::StackOverflow => "stack-overflow",
            FailureCause::Panic { .. } => "panic",
            FailureCause::Trap { .. } => "trap",
            FailureCause::Output { .. } => "output",
            FailureCause::Fault { .. } => "fault",
        }
    }
}

impl fmt::Display for FailureCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureCause::Fuel { fuel } => write!(
                f,
                "fuel exhausted: the call ran longer than its {fuel} units of fuel"
            ),
            FailureCause::Deadline { millis } => write!(
                f,
                "deadline exceeded: the call ran longer than its {millis} ms of wall-clock time"
            ),
            FailureCause::Memory { bytes } => write!(
                f,
                "memory limit of {} MiB reached (all the game's memories and tables together)",
                bytes >> 20
            ),
            FailureCause::StackOverflow => {
                f.write_str("trap: call stack exhausted (recursion too deep)")
            }
            FailureCause::Panic {
                message: Some(message),
            } => write!(f, "it panicked: {message}"),
            FailureCause::Panic { message: None } => f.write_str(
                "it panicked (its message was lost: a ruleset has no standard error to write it to)",
            ),
            FailureCause::Trap { trap } => write!(f, "trap: {trap}"),
            FailureCause::Output { detail } => f.write_str(detail),
            FailureCause::Fault { detail } => f.write_str(detail),
        }
    }
}

/// A ruleset call that failed: which ruleset, which export, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RulesetFailure {
    /// The ruleset's id (`(loading)` while a component is being described).
    pub ruleset: String,
    /// The export that failed, as the contract names it (`apply`, `render`, `restore`...).
    pub call: String,
    /// Why it failed.
    pub cause: FailureCause,
    /// Whether the game could not be rebuilt after this failure and is now failed for good:
    /// every further call answers this same error at once, without running the ruleset.
    pub game_failed: bool,
}

impl fmt::Display for RulesetFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ruleset `{}` failed in `{}`: {}",
            self.ruleset, self.call, self.cause
        )?;
        if self.game_failed {
            f.write_str("; the game could not be rebuilt and is marked failed")?;
        }
        Ok(())
    }
}

impl std::error::Error for RulesetFailure {}

/// The host has no room for another instance: the pool of instances (or of their memories or
/// tables) is full. Nothing is wrong with the ruleset or the request; a server answers "full,
/// try later" (HTTP 503).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CapacityExhausted {
    /// What ran out, as wasmtime's pooling allocator says it.
    pub detail: String,
}

impl fmt::Display for CapacityExhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the host is at capacity ({}); try again later",
            self.detail
        )
    }
}

impl std::error::Error for CapacityExhausted {}

/// Why a call into a ruleset gave no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The ruleset failed: a trap, a limit, a fault. The running game it ran in is unusable;
    /// drop it and rebuild the game.
    #[error(transparent)]
    Failed(#[from] RulesetFailure),
    /// The host had no room for another instance; nothing is wrong with the ruleset.
    #[error(transparent)]
    Capacity(#[from] CapacityExhausted),
}

impl CallError {
    /// The ruleset's failure, when the ruleset is to blame.
    pub fn failure(&self) -> Option<&RulesetFailure> {
        match self {
            CallError::Failed(failure) => Some(failure),
            CallError::Capacity(_) => None,
        }
    }

    /// The capacity error, when the host was full.
    pub fn capacity(&self) -> Option<&CapacityExhausted> {
        match self {
            CallError::Capacity(full) => Some(full),
            CallError::Failed(_) => None,
        }
    }
}

/// The call error inside an `anyhow::Error`, if one travelled in it.
fn call_error_of(error: &anyhow::Error) -> Option<&CallError> {
    error
        .chain()
        .find_map(|cause| cause.downcast_ref::<CallError>())
}

/// The ruleset failure inside an `anyhow::Error`, if one travelled in it.
pub fn failure_of(error: &anyhow::Error) -> Option<&RulesetFailure> {
    error
        .chain()
        .find_map(|cause| cause.downcast_ref::<RulesetFailure>())
        .or_else(|| call_error_of(error).and_then(CallError::failure))
}

/// The capacity error inside an `anyhow::Error`, if one travelled in it.
pub fn capacity_exhausted(error: &anyhow::Error) -> Option<&CapacityExhausted> {
    error
        .chain()
        .find_map(|cause| cause.downcast_ref::<CapacityExhausted>())
        .or_else(|| call_error_of(error).and_then(CallError::capacity))
}

/// The message of a caught panic, when it has one.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> Option<String> {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
}
