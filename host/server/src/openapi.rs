//! The OpenAPI 3.1 description of `/api`, served at `/api/openapi.json`. Written by hand from
//! the routes in [`super::app`]; a test checks that every route is described.

use axum::Json;
use serde_json::{Value, json};

use super::clocks::bounds;

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
    })
}

fn json_response(description: &str, schema: Value) -> Value {
    json!({ "description": description, "content": { "application/json": { "schema": schema } } })
}

fn json_body(schema: Value) -> Value {
    json!({ "required": true, "content": { "application/json": { "schema": schema } } })
}

fn path_param(name: &str, description: &str) -> Value {
    json!({ "name": name, "in": "path", "required": true, "description": description, "schema": { "type": "string" } })
}

/// A seat's display name as the server takes it: 1 to 64 characters with at least one that is
/// not white space, and none of the control and invisible characters it refuses (`seat_name`
/// in `api.rs`).
fn display_name() -> Value {
    json!({ "type": "string", "minLength": 1, "maxLength": 64, "pattern": DISPLAY_NAME_PATTERN })
}

/// Refused: control characters, the soft hyphen, bidirectional marks and overrides, zero-width
/// and other invisible characters; required: one character that is neither these nor space.
const DISPLAY_NAME_PATTERN: &str = r"^[^\x00-\x1F\x7F-\x9F\xAD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB]*[^\s\x00-\x1F\x7F-\x9F\xAD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB][^\x00-\x1F\x7F-\x9F\xAD\u061C\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB]*$";

fn any_object() -> Value {
    json!({ "type": "object" })
}

/// The map editor's call (its own function: the document is too deep for one `json!`).
fn editor_path() -> Value {
    json!({ "post": {
        "summary": "The map editor's call: applies `edits` (in order: `move`, `connect`, `disconnect`, `set`, `add-place`, `remove-place`; see docs/api.md) to the map text `toml` without changing anything else in it, checks the result with the ruleset's `validate-map` and draws it. Answers the new `toml`, `valid`, `diagnostics` (each with the `place` whose table holds its line, if any), `svg` or `board_error`, and, when the ruleset has an editor schema, `schema`, `places` and `connections`. Nothing is stored. One call at a time per client address.",
        "parameters": [path_param("id", "The ruleset's id.")],
        "requestBody": json_body(json!({
            "type": "object",
            "required": ["toml"],
            "additionalProperties": false,
            "properties": {
                "toml": { "type": "string", "maxLength": 61440 },
                "edits": { "type": "array", "maxItems": 64, "items": { "type": "object", "required": ["op"], "properties": { "op": { "type": "string", "enum": ["move", "connect", "disconnect", "set", "add-place", "remove-place"] } } } }
            }
        })),
        "responses": {
            "200": json_response("The edited text, checked and drawn.", any_object()),
            "400": error_response("Malformed request, a text over 60 KiB, a text that is not TOML with edits to apply, or an edit naming no place, kind or field of the schema."),
            "404": error_response("No such ruleset."),
            "413": error_response("Body over 64 KiB."),
            "429": error_response("The address is checking a map already, or is over its request rate."),
            "503": error_response("The server is checking as many maps as it can.")
        }
    }})
}

/// Saving a map as an example (its own function: the document is too deep for one `json!`).
fn examples_path() -> Value {
    json!({ "put": {
        "summary": "Saves the map text `toml` as the ruleset's example map `name` (`maps/<ruleset>/examples/<name>.toml`, byte for byte), which the lobby then offers; the server's operator only (`Authorization: Bearer <operator token>`; a server started without an operator token refuses every save, 403). The text is checked as the map editor checks it: a map with errors is refused (422 `invalid-map` with its `diagnostics`). A map the ruleset lists is never replaced; an example only with `replace: true`. The maps API lists the example as soon as this answers. A refused save writes nothing.",
        "security": [{ "operatorToken": [] }],
        "parameters": [
            path_param("id", "The ruleset's id."),
            { "name": "name", "in": "path", "required": true, "description": "The example's id: 1 to 64 lowercase letters, digits and hyphens, starting and ending with a letter or digit.", "schema": { "type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[a-z0-9]([a-z0-9-]*[a-z0-9])?$" } }
        ],
        "requestBody": json_body(json!({
            "type": "object",
            "required": ["toml"],
            "additionalProperties": false,
            "properties": {
                "toml": { "type": "string", "maxLength": 61440 },
                "replace": { "type": "boolean", "default": false, "description": "Replace an example of this name (else 409)." }
            }
        })),
        "responses": {
            "200": json_response("An example of this name was replaced.", json!({ "$ref": "#/components/schemas/SavedExample" })),
            "201": json_response("The example was saved and is offered.", json!({ "$ref": "#/components/schemas/SavedExample" })),
            "400": error_response("A bad name, a text over 60 KiB, a ruleset that takes no map, or a malformed body."),
            "403": error_response("No operator token or a wrong one, or saving examples is off on this server."),
            "404": error_response("No such ruleset."),
            "409": error_response("The name is a map the ruleset ships, or an example that exists and `replace` is not set."),
            "422": error_response("The ruleset found errors in the map (`invalid-map`, with `diagnostics`); nothing was saved."),
            "429": error_response("The address is checking a map already, or is over its request rate."),
            "503": error_response("The server is checking as many maps as it can.")
        }
    }})
}

/// The document.
pub fn spec() -> Value {
    let mut document = described_routes();
    complete_responses(&mut document);
    document
}

/// Adds to every operation the answers any request of its kind may get, so the document lists
/// every status the server can answer: 400 for a bad path or query parameter, 429 for a rate
/// limit, 503 for a full or slow server, 500 for a failed ruleset; and, for an operation with
/// a body, 408 (too slow), 413 (too large) and 415 (not JSON).
fn complete_responses(document: &mut Value) {
    let Some(paths) = document["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Some(operations) = item.as_object_mut() else {
            continue;
        };
        for (method, operation) in operations.iter_mut() {
            let has_body = operation.get("requestBody").is_some();
            // Any request's body is read before it is answered, whether the operation takes
            // one or not: a POST may always be too large or too slow.
            let may_send_body = has_body || method == "post";
            let has_parameters = operation
                .get("parameters")
                .and_then(Value::as_array)
                .is_some_and(|parameters| !parameters.is_empty());
            let Some(responses) = operation["responses"].as_object_mut() else {
                continue;
            };
            let mut add = |status: &str, description: &str| {
                responses
                    .entry(status.to_owned())
                    .or_insert_with(|| error_response(description));
            };
            add(
                "429",
                "Over a rate limit (`rate-limited`, with `Retry-After`).",
            );
            add(
                "503",
                "The server is at its capacity or took longer than 30 s (`busy`).",
            );
            if path == "/api/openapi.json" || path == "/api/rulesets" {
                continue;
            }
            add(
                "500",
                "The ruleset's code failed (`ruleset-failed`); the game is as it was.",
            );
            if has_parameters || has_body {
                add("400", "A bad path or query parameter, or a malformed body.");
            }
            if may_send_body {
                add(
                    "408",
                    "The body did not arrive within 20 s (`request-timeout`).",
                );
                add("413", "Body over 64 KiB (`payload-too-large`).");
            }
            if has_body {
                add(
                    "415",
                    "No `Content-Type: application/json` (`unsupported-media-type`).",
                );
            }
        }
    }
}

/// The routes as written by hand, before [`complete_responses`].
fn described_routes() -> Value {
    let game_id = path_param("id", "The game's id.");
    let seat_param = json!({ "name": "seat", "in": "path", "required": true, "schema": { "type": "integer", "minimum": 0, "maximum": u32::MAX } });
    let idempotency_key = json!({ "type": ["string", "null"], "minLength": 16, "maxLength": 128, "pattern": "^[!-~]+$", "description": "A key the client makes up for this request and its retries: a retry with the same secret and key within 10 minutes gets the same token back, so an answer lost on the way does not lock the seat." });
    let ticket_query = json!({
        "name": "ticket", "in": "query", "required": false,
        "description": "A single-use stream ticket from `POST /api/games/{id}/stream-ticket`, for clients that cannot send `Authorization` (EventSource). Seat tokens are never accepted in a URL (`?token=` answers 400).",
        "schema": { "type": "string" }
    });
    let since_query = json!({
        "name": "since", "in": "query", "required": false,
        "description": "Only entries after this version.",
        "schema": { "type": "integer", "minimum": 0, "maximum": u64::MAX }
    });
    let bearer = json!([{ "seatToken": [] }, {}]);
    let lab_id = path_param("id", "The lab job's id.");
    let mut document = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Tenka game server",
            "version": "1",
            "description": "Play any loaded ruleset. A seat acts with its token (`Authorization: Bearer <token>`, never in a URL); without a token a client is a spectator and sees only what is public. A game's creator gets a host token (manages invites), the tokens of the seats it plays itself and one single-use invite code per other person's seat; a person exchanges the code for the seat's own token. Every error body is `{ error, message }`. Any request may also be answered 429 `rate-limited` (with `Retry-After` and `retry_after`: a client's requests, a seat's actions and an address's new games are rate-limited), 503 `busy` (the server is at its capacity or took longer than 30 s) or 500 `ruleset-failed` (the ruleset's code failed; the game is as it was). Bad path or query parameters are 400 `bad-request`."
        },
        "paths": {
            "/api/rulesets": { "get": {
                "summary": "The loaded rulesets with their maps, option schemas and variants.",
                "responses": { "200": json_response("The rulesets.", json!({ "type": "array", "items": { "$ref": "#/components/schemas/Ruleset" } })) }
            }},
            "/api/rulesets/{id}/catalogue/{lang}": { "get": {
                "summary": "A ruleset's message catalogue for a language (empty if not shipped): of the version new games get, or of `version`, a game's `ruleset_hash`.",
                "parameters": [
                    path_param("id", "The ruleset's id."),
                    { "name": "lang", "in": "path", "required": true, "description": "A BCP 47 language tag (2 to 16 letters, digits and hyphens; others are 400).", "schema": { "type": "string", "pattern": "^[A-Za-z0-9-]{2,16}$" } },
                    { "name": "version", "in": "query", "required": false, "schema": { "type": "string" }, "description": "A loaded version's content hash, e.g. a game's `ruleset_hash`." }
                ],
                "responses": {
                    "200": json_response("Templates by message key.", json!({ "type": "object", "additionalProperties": { "type": "string" } })),
                    "404": error_response("No such ruleset, or no such loaded version.")
                }
            }},
            "/api/rulesets/{id}/maps/{map}": { "get": {
                "summary": "A map on offer (listed or example): its text, hash, the ruleset's diagnostics and the board of a fresh game on it (`svg`, or `board_error` saying why there is none).",
                "parameters": [path_param("id", "The ruleset's id."), path_param("map", "The map's id.")],
                "responses": {
                    "200": json_response("The map.", any_object()),
                    "404": error_response("No such ruleset or map.")
                }
            }},
            "/api/games": {
                "get": {
                    "summary": "The newest games.",
                    "responses": { "200": json_response("The games.", json!({ "type": "array", "items": { "$ref": "#/components/schemas/Game" } })) }
                },
                "post": {
                    "summary": "Create a game. The answer holds, once: the host token, a token for each seat marked `creator`, and an invite code for every other person's seat.",
                    "requestBody": json_body(json!({ "$ref": "#/components/schemas/CreateGame" })),
                    "responses": {
                        "201": json_response("The game with its secrets, shown once.", json!({ "$ref": "#/components/schemas/CreatedGame" })),
                        "400": error_response("Malformed request or unknown option."),
                        "403": error_response("A fixed `seed` on a server that does not allow them."),
                        "404": error_response("No such ruleset, map or variant."),
                        "409": error_response("Every seat is a bot's and the address already runs as many such games as it may."),
                        "413": error_response("Body over 64 KiB."),
                        "422": error_response("The ruleset refused the setup.")
                    }
                }
            },
            "/api/games/{id}": { "get": {
                "summary": "One game.",
                "parameters": [game_id.clone()],
                "responses": { "200": json_response("The game.", json!({ "$ref": "#/components/schemas/Game" })), "404": error_response("No such game.") }
            }},
            "/api/games/{id}/claim": { "post": {
                "summary": "Claim the token's seat with a display name. The seat gets a fresh token (in the answer); the one sent stops working.",
                "parameters": [game_id.clone()],
                "security": [{ "seatToken": [] }],
                "requestBody": json_body(json!({ "type": "object", "additionalProperties": false, "required": ["name"], "properties": { "name": display_name(), "idempotency_key": idempotency_key.clone() } })),
                "responses": { "200": json_response("The claimed seat and its new token.", json!({ "$ref": "#/components/schemas/SeatToken" })), "400": error_response("Bad name."), "403": error_response("Wrong or missing token."), "404": error_response("No such game.") }
            }},
            "/api/games/{id}/join": { "post": {
                "summary": "Exchange an invite code, once, for the seat's own fresh token; the seat is claimed.",
                "parameters": [game_id.clone()],
                "requestBody": json_body(json!({ "type": "object", "additionalProperties": false, "required": ["code"], "properties": { "code": { "type": "string" }, "name": display_name(), "idempotency_key": idempotency_key } })),
                "responses": { "200": json_response("The seat and its token.", json!({ "$ref": "#/components/schemas/SeatToken" })), "400": error_response("Malformed body or bad name."), "403": error_response("The invite was used, revoked or never issued for this game."), "404": error_response("No such game.") }
            }},
            "/api/games/{id}/invites": { "get": {
                "summary": "The seats as the creator manages them: the public seat facts plus `invite_open`.",
                "parameters": [game_id.clone()],
                "security": [{ "hostToken": [] }],
                "responses": { "200": json_response("The seats.", json!({ "type": "array", "items": { "type": "object" } })), "403": error_response("Not the host token (or a game from before invites)."), "404": error_response("No such game.") }
            }},
            "/api/games/{id}/seats/{seat}/invite": {
                "post": {
                    "summary": "A new invite code for an unclaimed person's seat. The seat's earlier invite is revoked and any token held for the seat stops working.",
                    "parameters": [game_id.clone(), seat_param.clone()],
                    "security": [{ "hostToken": [] }],
                    "responses": { "200": json_response("`{ seat, invite }`: the new code, shown once.", any_object()), "400": error_response("A bot's seat."), "403": error_response("Not the host token."), "404": error_response("No such game or seat."), "409": error_response("The seat is claimed, or the game is over.") }
                },
                "delete": {
                    "summary": "Revoke an unclaimed seat's open invite.",
                    "parameters": [game_id.clone(), seat_param.clone()],
                    "security": [{ "hostToken": [] }],
                    "responses": { "200": json_response("`{ seat, invite: null }`.", any_object()), "400": error_response("A bot's seat."), "403": error_response("Not the host token."), "404": error_response("No such game or seat."), "409": error_response("The seat is claimed.") }
                }
            },
            "/api/games/{id}/seats/{seat}/reopen": { "post": {
                "summary": "Reopen a person's seat, claimed or not, with a new invite code: the token its person held stops working. Who plays it meanwhile (a bot) does not change.",
                "parameters": [game_id.clone(), seat_param.clone()],
                "security": [{ "hostToken": [] }],
                "responses": { "200": json_response("`{ seat, invite }`: the new code, shown once.", any_object()), "400": error_response("A bot's seat."), "403": error_response("Not the host token."), "404": error_response("No such game or seat."), "409": error_response("The game is over.") }
            }},
            "/api/games/{id}/stream-ticket": { "post": {
                "summary": "A ticket that opens the event stream once, as the token's seat, within `expires_in` seconds.",
                "parameters": [game_id.clone()],
                "security": [{ "seatToken": [] }],
                "responses": { "200": json_response("`{ ticket, expires_in }`.", any_object()), "403": error_response("Wrong or missing token."), "404": error_response("No such game.") }
            }},
            "/api/games/{id}/view": { "get": {
                "summary": "The game as the token's seat (or a spectator) sees it; with `at`, as it was after that many actions (finished games only: the replay viewer).",
                "parameters": [game_id.clone(), {
                    "name": "at", "in": "query", "required": false,
                    "description": "The board after this many actions; only once the game is over (403 before).",
                    "schema": { "type": "integer", "minimum": 0, "maximum": u64::MAX }
                }],
                "security": bearer,
                "responses": { "200": json_response("The view.", json!({ "$ref": "#/components/schemas/View" })), "403": error_response("Wrong token."), "404": error_response("No such game.") }
            }},
            "/api/games/{id}/actions": { "post": {
                "summary": "Answer the token's seat's pending decision. Stored durably before the answer.",
                "parameters": [game_id.clone()],
                "security": [{ "seatToken": [] }],
                "requestBody": json_body(json!({ "type": "object", "additionalProperties": false, "required": ["version", "action"], "properties": { "version": { "type": "integer", "minimum": 0, "maximum": u64::MAX }, "action": { "$ref": "#/components/schemas/Action" } } })),
                "responses": {
                    "200": json_response("The new version and the events the seat may see.", any_object()),
                    "400": error_response("Malformed JSON."),
                    "403": error_response("Wrong or missing token, or a bot plays the seat."),
                    "404": error_response("No such game."),
                    "409": error_response("Stale version; the body carries the current `version`."),
                    "413": error_response("Body over 64 KiB."),
                    "422": error_response("The ruleset rejected the action; nothing changed.")
                }
            }},
            "/api/games/{id}/preview": { "post": {
                "summary": "What an answer would do if the token's seat sent it now (costs, steps that would be skipped), said by the ruleset. Changes nothing; the answer may pick or place fewer than the decision's minimum.",
                "parameters": [game_id.clone()],
                "security": [{ "seatToken": [] }],
                "requestBody": json_body(json!({ "type": "object", "additionalProperties": false, "required": ["action"], "properties": { "action": { "$ref": "#/components/schemas/Action" } } })),
                "responses": {
                    "200": json_response("The notes: `{ notes: [{ level: info|warning, text: Message }] }`.", any_object()),
                    "400": error_response("Malformed JSON."),
                    "403": error_response("Wrong or missing token."),
                    "404": error_response("No such game."),
                    "413": error_response("Body over 64 KiB."),
                    "422": error_response("Not the seat's turn, or the draft does not fit the decision's shape.")
                }
            }},
            "/api/games/{id}/log": { "get": {
                "summary": "The log entries the viewer may see, after `since`.",
                "parameters": [game_id.clone(), since_query.clone()],
                "security": bearer,
                "responses": { "200": json_response("The entries.", json!({ "type": "array", "items": { "$ref": "#/components/schemas/LogEntry" } })), "403": error_response("Wrong token."), "404": error_response("No such game.") }
            }},
            "/api/games/{id}/stream": { "get": {
                "summary": "Server-sent events: `update` with `{ version, log, seats_changed }` after every change, starting with what came after `since` (or `Last-Event-ID`).",
                "parameters": [game_id.clone(), ticket_query, since_query],
                "security": bearer,
                "responses": { "200": { "description": "An event stream. A seat's stream ends when the seat's token changes.", "content": { "text/event-stream": { "schema": { "type": "object", "required": ["event", "data"], "properties": { "event": { "const": "update" }, "id": { "type": "string", "description": "The version, for `Last-Event-ID`." }, "data": { "type": "string", "contentMediaType": "application/json", "description": "`{ version, log, seats_changed }`." } } } } } }, "400": error_response("A token in the URL, or both a token and a ticket."), "403": error_response("Wrong token, or a used or expired ticket."), "404": error_response("No such game.") }
            }},
            "/api/socket": { "get": {
                "summary": "The move socket (WebSocket): each text message `{ id, game, token, version, action }` is a move, answered in order with `{ id, version, events }` or `{ id, status, error, message, ... }` as `POST /api/games/{id}/actions` would answer it (docs/api.md).",
                "responses": { "101": { "description": "Switched to the WebSocket protocol." }, "400": { "description": "Not a WebSocket upgrade request." } }
            }},
            "/api/games/{id}/seats/{seat}/bot": { "post": {
                "summary": "Hand the seat to a bot, or take it back with `null`: with the seat's own token, or with the host token for any person's seat (a seat created for a bot cannot be taken back: 400).",
                "parameters": [game_id.clone(), seat_param],
                "security": [{ "seatToken": [] }, { "hostToken": [] }],
                "requestBody": json_body(json!({ "type": "object", "additionalProperties": false, "properties": { "bot": { "type": ["string", "null"], "enum": ["random", "search", "easy", "normal", "hard", null], "description": "The bot to hand the seat to: `easy`, `normal` or `hard` (levels of the information-set search), `random`, or `search` (the first search bot, kept for older clients); `null` or absent takes it back." } } })),
                "responses": { "200": json_response("The seat's controller.", any_object()), "403": error_response("Not this seat's token."), "404": error_response("No such game.") }
            }},
            "/api/games/{id}/record": { "get": {
                "summary": "The full game record (with the seed), once the game is over; replays bit for bit.",
                "parameters": [game_id],
                "responses": { "200": json_response("The record.", any_object()), "403": error_response("The game is still running."), "404": error_response("No such game.") }
            }},
            "/api/lab": { "post": {
                "summary": "Start a variant-lab job: the server plays `games` bot games of the rules under test (`variant` and `options`) and as many with the same seeds under the `baseline` rules, on a low-priority thread of its own, and writes the balance report. One running job per client address and a few per server.",
                "requestBody": json_body(json!({ "$ref": "#/components/schemas/StartLabJob" })),
                "responses": {
                    "202": json_response("The job, started; follow it at `Location`.", json!({ "$ref": "#/components/schemas/LabJob" })),
                    "400": error_response("Malformed request: unknown ruleset, map, variant, option or bot, an option out of range, players or games out of range."),
                    "413": error_response("Body over 64 KiB."),
                    "422": error_response("The ruleset refused the setup of one of the rule sets."),
                    "429": error_response("The address already runs a lab job (`too-many-jobs`), or over a rate limit (`rate-limited`)."),
                    "503": error_response("The server runs as many lab jobs as it may, or the lab is off (`busy`).")
                }
            }},
            "/api/lab/{id}": {
                "get": {
                    "summary": "A lab job: its progress, and once done its figures.",
                    "parameters": [lab_id.clone()],
                    "responses": { "200": json_response("The job.", json!({ "$ref": "#/components/schemas/LabJob" })), "404": error_response("No such job (or dropped: finished jobs are kept an hour at most).") }
                },
                "delete": {
                    "summary": "Cancel a running job after the games it is playing; the games finished make its figures and report. A job already done is left as it is.",
                    "parameters": [lab_id.clone()],
                    "responses": { "200": json_response("The job.", json!({ "$ref": "#/components/schemas/LabJob" })), "404": error_response("No such job.") }
                }
            },
            "/api/lab/{id}/report": { "get": {
                "summary": "The job's balance report: one self-contained HTML page (inline styles and SVG plots, no script), served with a policy that allows no script.",
                "parameters": [lab_id, { "name": "download", "in": "query", "required": false, "description": "Present: served as an attachment to save.", "schema": { "type": "string" } }],
                "responses": {
                    "200": { "description": "The report.", "content": { "text/html": { "schema": { "type": "string" } } } },
                    "404": error_response("No such job."),
                    "409": error_response("The job is still running, or failed.")
                }
            }},
            "/api/openapi.json": { "get": {
                "summary": "This document.",
                "responses": { "200": json_response("OpenAPI 3.1.", any_object()) }
            }}
        },
        "components": {
            "securitySchemes": {
                "seatToken": { "type": "http", "scheme": "bearer", "description": "A seat's token: from creating the game (the creator's own seats), from exchanging an invite code, or from claiming." },
                "hostToken": { "type": "http", "scheme": "bearer", "description": "The game's host token from creating the game: manages invites, acts for no seat." },
                "operatorToken": { "type": "http", "scheme": "bearer", "description": "The server's operator token, given to `tenka serve` (`--operator-token-file` or `TENKA_OPERATOR_TOKEN`); a server without one has no operator." }
            },
            "schemas": {
                "Error": { "type": "object", "required": ["error", "message"], "properties": {
                    "error": { "type": "string", "enum": ["bad-request", "not-found", "forbidden", "stale", "conflict", "rejected", "bad-setup", "invalid-map", "ruleset-unavailable", "payload-too-large", "request-timeout", "unsupported-media-type", "rate-limited", "too-many-streams", "too-many-jobs", "busy", "ruleset-failed", "internal"] },
                    "message": { "type": "string" },
                    "version": { "type": "integer", "description": "With `stale`: the current version." },
                    "rejection": { "description": "With `rejected`: the ruleset's rejection." },
                    "diagnostics": { "type": "array", "description": "With `invalid-map`: every finding of the ruleset's `validate-map`." }
                }},
                "Message": { "type": "object", "required": ["key"], "properties": { "key": { "type": "string" }, "args": { "type": "array" } } },
                "Action": { "description": "`{\"choose\":[indices]}`, `{\"number\":n}`, `{\"assign\":[[slot,item],...]}` or `\"back\"` (only where the pending decision has a `back` label; refused otherwise). Integers are written without a fraction: `5.0` is refused (400).", "oneOf": [
                    { "type": "string", "const": "back" },
                    { "type": "object", "additionalProperties": false, "required": ["choose"], "properties": { "choose": { "type": "array", "items": { "type": "integer", "minimum": 0, "maximum": u32::MAX } } } },
                    { "type": "object", "additionalProperties": false, "required": ["number"], "properties": { "number": { "type": "integer", "minimum": i64::MIN, "maximum": i64::MAX } } },
                    { "type": "object", "additionalProperties": false, "required": ["assign"], "properties": { "assign": { "type": "array", "items": {
                        "type": "array", "minItems": 2, "maxItems": 2, "prefixItems": [{ "type": "integer", "minimum": 0, "maximum": u32::MAX }, { "type": "integer", "minimum": 0, "maximum": u32::MAX }]
                    } } } }
                ] },
                "Ruleset": { "type": "object", "properties": {
                    "id": { "type": "string" }, "name": { "type": "string" }, "version": { "type": "string" }, "hash": { "type": "string" },
                    "min_seats": { "type": "integer" }, "max_seats": { "type": "integer" },
                    "languages": { "type": "array", "items": { "type": "string" } },
                    "maps": { "type": "array", "items": { "type": "object", "properties": {
                        "id": { "type": "string" },
                        "name": { "description": "A catalogue Message for a listed map, plain text for an example." },
                        "origin": { "type": "string", "enum": ["listed", "example"] },
                        "hash": { "type": "string" },
                        "valid": { "type": "boolean", "description": "Whether games can start on it (no error diagnostic)." }
                    }}},
                    "options": { "type": "array", "items": { "type": "object" } },
                    "variants": { "type": "array", "items": { "type": "object" } },
                    "refused_variants": { "type": "array", "items": { "type": "string" }, "description": "Each variant file that failed its check, with file, line, column and option." },
                    "editor": { "type": "boolean", "description": "Whether the ruleset's maps have an editor schema." },
                    "save_examples": { "type": "boolean", "description": "Whether the operator may save maps of this ruleset as examples here (`PUT /api/rulesets/{id}/examples/{name}`): the server has an operator token and the ruleset takes maps." }
                }},
                "CreateGame": { "type": "object", "additionalProperties": false, "required": ["ruleset", "seats"], "properties": {
                    "ruleset": { "type": "string" },
                    "map": { "type": "string", "description": "A shipped map's id." },
                    "map_toml": { "type": "string", "description": "A map of one's own instead." },
                    "variant": { "type": "string" },
                    "options": { "type": "object", "description": "Option values by name." },
                    "seats": { "type": "array", "items": { "oneOf": [
                        { "type": "object", "additionalProperties": false, "required": ["kind"], "properties": { "kind": { "const": "human" }, "name": display_name(), "creator": { "type": "boolean", "default": false, "description": "The creator plays this seat: its token is in the answer. Otherwise the answer holds an invite code for it." } } },
                        { "type": "object", "additionalProperties": false, "required": ["kind", "bot"], "properties": { "kind": { "const": "bot" }, "bot": { "enum": ["random", "search", "easy", "normal", "hard"] } } }
                    ] } },
                    "seed": { "type": "string", "description": "64 hex digits; only on servers that allow fixed seeds." },
                    "pace": { "$ref": "#/components/schemas/Pace" },
                    "rated": { "type": "boolean", "default": false, "description": "A rated table: needs a timed pace (else 400). Its result moves the Glicko-2 ratings if every person's seat is attached to an account when it ends." }
                }},
                "Pace": { "description": "A table's pace, chosen at creation. `untimed` (the default): no clock. `live`: a bank per player plus an increment per move (up to the starting bank). `turn-based`: a time per move plus a bank of extra days. A seat out of time is handed to `bot` (default: the level of the table's first bot, else `normal`); its person may take it back.", "oneOf": [
                    { "type": "object", "additionalProperties": false, "required": ["kind"], "properties": { "kind": { "const": "untimed" } } },
                    { "type": "object", "additionalProperties": false, "required": ["kind", "bank_seconds"], "properties": {
                        "kind": { "const": "live" },
                        "bank_seconds": { "type": "integer", "minimum": bounds::BANK_SECONDS.start(), "maximum": bounds::BANK_SECONDS.end() },
                        "increment_seconds": { "type": "integer", "minimum": bounds::INCREMENT_SECONDS.start(), "maximum": bounds::INCREMENT_SECONDS.end(), "default": 0 },
                        "bot": { "enum": ["random", "search", "easy", "normal", "hard"] }
                    }},
                    { "type": "object", "additionalProperties": false, "required": ["kind", "move_hours"], "properties": {
                        "kind": { "const": "turn-based" },
                        "move_hours": { "type": "integer", "minimum": bounds::MOVE_HOURS.start(), "maximum": bounds::MOVE_HOURS.end() },
                        "extra_days": { "type": "integer", "minimum": bounds::EXTRA_DAYS.start(), "maximum": bounds::EXTRA_DAYS.end(), "default": 0 },
                        "bot": { "enum": ["random", "search", "easy", "normal", "hard"] }
                    }}
                ] },
                "Clocks": { "type": ["object", "null"], "description": "Each seat's clock at a timed table (`null` when untimed), as of the server's `now` (ms since the Unix epoch). A seat's clock runs while it owes an answer and a person plays it.", "properties": {
                    "now": { "type": "integer" },
                    "seats": { "type": "array", "items": { "type": "object", "required": ["seat", "remaining_ms", "bank_ms", "running", "deadline", "timed_out"], "properties": {
                        "seat": { "type": "integer" },
                        "remaining_ms": { "type": "integer", "description": "Time left: until the deadline when running, else the next move's time plus the bank." },
                        "bank_ms": { "type": "integer", "description": "The bank as of when the clock last stopped." },
                        "running": { "type": "boolean" },
                        "deadline": { "type": ["integer", "null"], "description": "When a running seat runs out (ms since the Unix epoch)." },
                        "timed_out": { "type": "boolean", "description": "The seat ran out of time and was handed to a bot." }
                    }}}
                }},
                "CreatedGame": { "type": "object", "required": ["id", "version", "host_token", "seats", "spectator_url"], "properties": {
                    "id": { "type": "string" }, "version": { "type": "integer" },
                    "host_token": { "type": "string", "description": "The creator's credential for managing invites; acts for no seat." },
                    "seats": { "type": "array", "items": { "type": "object", "required": ["seat", "kind", "name"], "properties": {
                        "seat": { "type": "integer" }, "kind": { "enum": ["human", "bot"] }, "name": { "type": "string" },
                        "token": { "type": "string", "description": "Only for seats marked `creator`." },
                        "invite": { "type": "string", "description": "Only for other people's seats: a single-use code for `POST /api/games/{id}/join`." },
                        "bot": { "type": "string", "description": "Only for bots' seats: the bot playing it." }
                    }}},
                    "spectator_url": { "type": "string" }
                }},
                "StartLabJob": { "type": "object", "additionalProperties": false, "required": ["ruleset", "players", "games"], "properties": {
                    "ruleset": { "type": "string" },
                    "map": { "type": "string", "description": "A map's id; default the ruleset's first playable map." },
                    "variant": { "type": "string", "description": "A named variant: the rules under test start from its options." },
                    "options": { "type": "object", "description": "Option values by name, over the variant's." },
                    "baseline": { "type": "string", "description": "The rules compared with: a variant id, or `standard` (the default) for the ruleset's defaults." },
                    "players": { "type": "integer", "minimum": 1, "maximum": u32::MAX },
                    "games": { "type": "integer", "minimum": 1, "maximum": 10_000, "description": "Games per rule set; the server's cap (200 by default) applies." },
                    "bot": { "enum": ["random", "search"], "description": "The bot of every seat; default `random`." },
                    "seed": { "type": "integer", "minimum": 0, "maximum": u64::MAX, "description": "Default a random one, told in the job's `request.seed`." }
                }},
                "LabJob": { "type": "object", "required": ["id", "status", "games_done", "games_total", "request"], "properties": {
                    "id": { "type": "string" },
                    "status": { "enum": ["running", "cancelling", "finished", "cancelled", "failed"] },
                    "games_done": { "type": "integer", "description": "Games played so far, of both rule sets." },
                    "games_total": { "type": "integer" },
                    "request": { "type": "object", "description": "What was asked, with the seed, the map and the labels of the two rule sets." },
                    "report_url": { "type": ["string", "null"], "description": "Once finished or cancelled." },
                    "error": { "type": "string", "description": "Why a failed job failed." },
                    "summary": { "type": "object", "description": "Once finished or cancelled: `arms` (per rule set: `label`, `games`, `failed`, `first_failure`, `mean_actions` and `seats`, each with `wins`, `win_rate`, its 95 % Wilson interval `win_rate_low`..`win_rate_high` and `mean_score`), `differences` (the significant differences in plain English words), `findings` (the same as data: `measure`, `seat` or `key` where it applies, `tested`, `baseline`, `p`, `test`, `line`), `wall_seconds`, `games_per_second` and `seed`." }
                }},
                "SeatToken": { "type": "object", "required": ["seat", "name", "token"], "properties": {
                    "seat": { "type": "integer" }, "name": { "type": "string" },
                    "token": { "type": "string", "description": "The seat's new token; every earlier one has stopped working." }
                }},
                "Game": { "type": "object", "properties": {
                    "id": { "type": "string" }, "ruleset": { "type": "string" }, "map": { "type": "string" },
                    "ruleset_hash": { "type": "string", "description": "The ruleset version the game runs on, for good." },
                    "map_hash": { "type": "string", "description": "The SHA-256 of the map text the game was created with." },
                    "variant": { "type": ["string", "null"] },
                    "seats": { "type": "array", "items": { "type": "object" } },
                    "version": { "type": "integer" },
                    "status": { "enum": ["active", "finished"] },
                    "created_at": { "type": "integer", "description": "Milliseconds since the Unix epoch." },
                    "pace": { "$ref": "#/components/schemas/Pace" },
                    "clocks": { "$ref": "#/components/schemas/Clocks" }
                }},
                "View": { "type": "object", "properties": {
                    "version": { "type": "integer" },
                    "viewer": { "description": "`{\"seat\":n}` or `\"spectator\"`." },
                    "seats": { "type": "array" }, "status": { "enum": ["active", "finished"] },
                    "pending": { "type": "array", "description": "The viewer's own pending decisions." },
                    "waiting_for": { "type": "array", "items": { "type": "integer" } },
                    "state": { "description": "The ruleset's view for this viewer." },
                    "parts": { "type": "array", "description": "The board in parts, each sanitized SVG: `{ id, kind: \"map\" | {\"seat\": n} | \"table\", title: Message|null, svg }`. A 0.1.0 ruleset gives one map part, `board`.", "items": { "type": "object", "properties": { "id": { "type": "string" }, "kind": {}, "title": {}, "svg": { "type": "string" } } } },
                    "result": { "type": "object" },
                    "seed": { "type": "string", "description": "Only once the game is over." },
                    "seed_commitment": { "type": "string", "description": "SHA-256 of the seed, hex." },
                    "pace": { "$ref": "#/components/schemas/Pace" },
                    "clocks": { "$ref": "#/components/schemas/Clocks" }
                }},
                "LogEntry": { "type": "object", "properties": {
                    "version": { "type": "integer" }, "seat": { "type": "integer" },
                    "bot": { "type": "string", "description": "The bot that chose this action for the seat (a bot's seat, or a person's seat handed to a bot or run out of time); absent when the seat's person did." },
                    "events": { "type": "array", "description": "One step each; `drops` index this entry's `tower` list (the drops the step explains), `summary` is a stage to pause on (`{ title, lines: [{ seat, label, value }] }`).", "items": { "type": "object", "properties": { "text": { "$ref": "#/components/schemas/Message" }, "drops": { "type": "array", "items": { "type": "integer" } }, "summary": {} } } },
                    "tower": { "type": "array", "description": "Cubes dropped into and come out of the battle tower (never what stays inside)." }
                }}
            }
        }
    });
    document["paths"]["/api/rulesets/{id}/editor"] = editor_path();
    document["paths"]["/api/rulesets/{id}/examples/{name}"] = examples_path();
    add_accounts(&mut document);
    add_passkeys(&mut document);
    add_notices(&mut document);
    add_health(&mut document);
    crate::ratings::add_to_openapi(&mut document);
    document["components"]["schemas"]["SavedExample"] = json!({ "type": "object", "required": ["ruleset", "id", "origin", "hash", "offered", "replaced", "diagnostics"], "properties": {
        "ruleset": { "type": "string" },
        "id": { "type": "string", "description": "The example's map id (its name)." },
        "origin": { "const": "example" },
        "hash": { "type": "string", "description": "SHA-256 of the text saved, hex: the map's `hash` in the maps API." },
        "offered": { "type": "boolean", "description": "Whether the offer lists it already (it does unless rereading the maps failed; the file watcher tries again)." },
        "replaced": { "type": "boolean" },
        "diagnostics": { "type": "array", "description": "The ruleset's findings (warnings only)." }
    }});
    document
}

/// The accounts' routes (`accounts/`): sign-up, sign-in, sign-out, the account, attaching
/// seats, My games and a seat's token for this device.
fn add_accounts(document: &mut Value) {
    let credentials = json!({ "type": "object", "additionalProperties": false, "required": ["name", "password"], "properties": {
        "name": { "type": "string", "minLength": 3, "maxLength": 32, "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]*$", "description": "Case does not count: `Ann` and `ann` are one account." },
        "password": { "type": "string", "minLength": 10, "maxLength": 128 }
    }});
    let signed_in = json_response(
        "Signed in: `Set-Cookie` holds the session (HttpOnly, SameSite=Strict, Path=/api; Secure with `--secure-cookies`).",
        json!({ "$ref": "#/components/schemas/SignedIn" }),
    );
    let session = json!([{ "sessionCookie": [] }]);
    let change = "A change made with the session cookie: needs the session's CSRF token in `X-CSRF-Token`, else 403 and nothing changes.";
    let paths = &mut document["paths"];
    paths["/api/accounts"] = json!({ "post": {
        "summary": "Create an account and sign this browser in (a new session; any session the browser's cookie named before is ended). Rate-limited per client address.",
        "requestBody": json_body(credentials.clone()),
        "responses": {
            "201": signed_in.clone(),
            "400": error_response("A name or password outside the bounds."),
            "409": error_response("The name is taken (in any case).")
        }
    }});
    paths["/api/accounts/sign-in"] = json!({ "post": {
        "summary": "Sign in with a new session (never the one the browser's cookie named before, which is ended). Rate-limited per client address and per account.",
        "requestBody": json_body(credentials),
        "responses": {
            "200": signed_in,
            "400": error_response("A name or password outside the bounds."),
            "403": error_response("Wrong account name or password (which one is not told).")
        }
    }});
    paths["/api/accounts/sign-out"] = json!({ "post": {
        "summary": format!("End this session; the cookie is cleared. {change}"),
        "security": session.clone(),
        "parameters": [csrf_header()],
        "responses": {
            "200": json_response("Signed out.", json!({ "type": "object", "properties": { "signed_out": { "const": true } } })),
            "403": error_response("Not signed in, or no CSRF token.")
        }
    }});
    paths["/api/me"] = json!({ "get": {
        "summary": "The signed-in account and its session's CSRF token.",
        "security": session.clone(),
        "responses": {
            "200": json_response("The account.", json!({ "$ref": "#/components/schemas/SignedIn" })),
            "403": error_response("Not signed in.")
        }
    }});
    paths["/api/me/seats"] = json!({ "post": {
        "summary": format!("Attach to the account the seats whose tokens this browser holds. Each token is checked against its game; one of no seat, or of a seat another account has, is refused and changes nothing. {change}"),
        "security": session.clone(),
        "parameters": [csrf_header()],
        "requestBody": json_body(json!({ "type": "object", "additionalProperties": false, "required": ["seats"], "properties": {
            "seats": { "type": "array", "maxItems": 64, "items": { "type": "object", "additionalProperties": false, "required": ["game", "token"], "properties": {
                "game": { "type": "string", "minLength": 1, "maxLength": 64 },
                "token": { "type": "string", "maxLength": 128 }
            }}}
        }})),
        "responses": {
            "200": json_response("What became of each seat, in order.", json!({ "type": "object", "properties": { "seats": { "type": "array", "items": { "type": "object", "required": ["game", "outcome"], "properties": {
                "game": { "type": "string" }, "seat": { "type": "integer" },
                "outcome": { "enum": ["attached", "already", "refused"] },
                "message": { "type": "string" }
            }}}}})),
            "400": error_response("More than 64 seats, or a game id or token too long."),
            "403": error_response("Not signed in, or no CSRF token.")
        }
    }});
    paths["/api/me/games"] = json!({ "get": {
        "summary": "The account's games (at most 200): those waiting for one of its seats first, the longest waiting first; then the running ones, the most recently moved first; then the finished ones with their results, the most recently finished first.",
        "security": session.clone(),
        "responses": {
            "200": json_response("The games.", json!({ "type": "object", "properties": { "games": { "type": "array", "items": { "$ref": "#/components/schemas/MyGame" } } } })),
            "403": error_response("Not signed in.")
        }
    }});
    paths["/api/me/games/{id}/seats/{seat}/token"] = json!({ "post": {
        "summary": format!("A fresh token for a seat attached to the account, for this browser: the seat's earlier token stops working everywhere, as a claim does. {change}"),
        "security": session,
        "parameters": [
            path_param("id", "The game's id."),
            { "name": "seat", "in": "path", "required": true, "schema": { "type": "integer", "minimum": 0, "maximum": u32::MAX } },
            csrf_header()
        ],
        "responses": {
            "200": json_response("The seat's new token.", json!({ "$ref": "#/components/schemas/SeatToken" })),
            "403": error_response("Not signed in, or no CSRF token."),
            "404": error_response("No seat of this account has this game and number.")
        }
    }});
    document["components"]["securitySchemes"]["sessionCookie"] = json!({ "type": "apiKey", "in": "cookie", "name": "tenka_session", "description": "An account's session, set by sign-up and sign-in." });
    document["components"]["schemas"]["SignedIn"] = json!({ "type": "object", "required": ["account", "csrf_token"], "properties": {
        "account": { "type": "object", "required": ["id", "name", "created_at"], "properties": { "id": { "type": "string" }, "name": { "type": "string" }, "created_at": { "type": "integer" } } },
        "csrf_token": { "type": "string", "description": "Send it in `X-CSRF-Token` with every change made with the session cookie." }
    }});
    document["components"]["schemas"]["MyGame"] = json!({ "type": "object", "required": ["id", "seat", "status"], "properties": {
        "id": { "type": "string" }, "ruleset": { "type": "string" }, "map": { "type": "string" },
        "variant": { "type": ["string", "null"] },
        "seat": { "type": "integer", "description": "The account's seat." },
        "seat_name": { "type": ["string", "null"] },
        "seats": { "type": "array", "items": { "type": "object" } },
        "status": { "enum": ["waiting", "running", "finished", "unavailable"] },
        "waiting_since": { "type": "integer", "description": "Only when waiting: milliseconds since the Unix epoch." },
        "last_change": { "type": "integer" },
        "result": { "type": "object", "description": "Only when finished." },
        "version": { "type": "integer" }, "created_at": { "type": "integer" }, "attached_at": { "type": "integer" }
    }});
}

/// A WebAuthn ceremony's start: its id and the options for the browser.
fn ceremony_started(description: &str, options: &str) -> Value {
    json_response(
        description,
        json!({ "type": "object", "required": ["ceremony", "options"], "properties": {
            "ceremony": { "type": "string", "description": "Send it back with the browser's answer, within 5 minutes; it is good once." },
            "options": { "type": "object", "description": options }
        }}),
    )
}

/// A ceremony's finish: its id and the browser's answer.
fn ceremony_finish(answer: &str) -> Value {
    json_body(
        json!({ "type": "object", "additionalProperties": false, "required": ["ceremony", "credential"], "properties": {
            "ceremony": { "type": "string", "maxLength": 128 },
            "credential": { "type": "object", "description": answer }
        }}),
    )
}

/// The passkeys' routes (`accounts/passkeys.rs`).
fn add_passkeys(document: &mut Value) {
    let session = json!([{ "sessionCookie": [] }]);
    let change = "A change made with the session cookie: needs the session's CSRF token in `X-CSRF-Token`, else 403 and nothing changes.";
    let creation = "`{ publicKey: PublicKeyCredentialCreationOptions }` as WebAuthn's JSON form (binary fields in base64url): a discoverable credential with user verification.";
    let request = "`{ publicKey: PublicKeyCredentialRequestOptions }` as WebAuthn's JSON form (binary fields in base64url).";
    let registration = "The `PublicKeyCredential` navigator.credentials.create() made, binary fields in base64url: `{ id, rawId, type, response: { attestationObject, clientDataJSON }, extensions }`.";
    let assertion = "The `PublicKeyCredential` navigator.credentials.get() gave, binary fields in base64url: `{ id, rawId, type, response: { authenticatorData, clientDataJSON, signature, userHandle }, extensions }`.";
    let no_relying_party = "A name outside the bounds, a malformed body, or a server reached by IP address without `--public-url` (WebAuthn takes no IP address as relying party).";
    let refused = "The ceremony is unknown, used, expired or of another kind or account; or the answer was refused (origin, relying party, challenge, signature, user verification, a counter that did not grow, a passkey of no account or of another account). Nothing changed but spending the ceremony.";
    let signed_in = json_response(
        "Signed in: `Set-Cookie` holds a new session (as for a password).",
        json!({ "$ref": "#/components/schemas/SignedIn" }),
    );
    let paths = &mut document["paths"];
    paths["/api/accounts/passkeys/sign-up"] = json!({ "post": {
        "summary": "Start making an account with a passkey instead of a password. Rate-limited per client address. Nothing is stored but the ceremony.",
        "requestBody": json_body(json!({ "type": "object", "additionalProperties": false, "required": ["name"], "properties": {
            "name": { "type": "string", "minLength": 3, "maxLength": 32, "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]*$" },
            "language": { "enum": crate::languages::LANGUAGES, "description": "The page's language, for the account's mails (else the request's `Accept-Language`)." }
        }})),
        "responses": {
            "200": ceremony_started("The ceremony.", creation),
            "400": error_response(no_relying_party),
            "409": error_response("The name is taken (in any case).")
        }
    }});
    paths["/api/accounts/passkeys/sign-up/finish"] = json!({ "post": {
        "summary": "Verify the new passkey, create the account (without a password) with it and sign this browser in.",
        "requestBody": ceremony_finish(registration),
        "responses": {
            "201": signed_in.clone(),
            "400": error_response(no_relying_party),
            "403": error_response(refused),
            "409": error_response("The name was taken meanwhile, or the passkey is registered already.")
        }
    }});
    paths["/api/accounts/passkeys/sign-in"] = json!({ "post": {
        "summary": "Start signing in with a passkey: the named account's passkeys, or (no name, or a name of no account with passkeys, which is not told apart) any discoverable passkey the browser holds for this server. Rate-limited per client address and, with a name, per account.",
        "requestBody": json_body(json!({ "type": "object", "additionalProperties": false, "properties": {
            "name": { "type": "string", "minLength": 3, "maxLength": 32, "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]*$" }
        }})),
        "responses": {
            "200": ceremony_started("The ceremony.", request),
            "400": error_response(no_relying_party)
        }
    }});
    paths["/api/accounts/passkeys/sign-in/finish"] = json!({ "post": {
        "summary": "Verify the browser's answer and sign it in to the passkey's account with a new session (any session its cookie named is ended). A discoverable sign-in counts against the account's sign-in limit.",
        "requestBody": ceremony_finish(assertion),
        "responses": {
            "200": signed_in,
            "400": error_response(no_relying_party),
            "403": error_response(refused),
            "409": error_response("The passkey signed in elsewhere at the same moment.")
        }
    }});
    paths["/api/me/passkeys"] = json!({ "get": {
        "summary": "The account's passkeys (their credential ids and times; the keys stay on the server) and whether it has a password.",
        "security": session.clone(),
        "responses": {
            "200": json_response("The passkeys.", json!({ "type": "object", "required": ["passkeys", "has_password"], "properties": {
                "passkeys": { "type": "array", "items": { "$ref": "#/components/schemas/PasskeyEntry" } },
                "has_password": { "type": "boolean" }
            }})),
            "403": error_response("Not signed in.")
        }
    }});
    paths["/api/me/passkeys/start"] = json!({ "post": {
        "summary": format!("Start adding a passkey to the account (at most 16). {change}"),
        "security": session.clone(),
        "parameters": [csrf_header()],
        "responses": {
            "200": ceremony_started("The ceremony (the account's passkeys excluded).", creation),
            "400": error_response(no_relying_party),
            "403": error_response("Not signed in, or no CSRF token."),
            "409": error_response("The account has 16 passkeys.")
        }
    }});
    paths["/api/me/passkeys/finish"] = json!({ "post": {
        "summary": format!("Verify the new passkey and add it to the account that started the ceremony (only to it). {change}"),
        "security": session.clone(),
        "parameters": [csrf_header()],
        "requestBody": ceremony_finish(registration),
        "responses": {
            "201": json_response("The passkey added.", json!({ "$ref": "#/components/schemas/PasskeyEntry" })),
            "400": error_response(no_relying_party),
            "403": error_response(refused),
            "409": error_response("The passkey is registered already.")
        }
    }});
    paths["/api/me/passkeys/{id}"] = json!({ "delete": {
        "summary": format!("Remove one of the account's passkeys, unless it is the account's last way to sign in. {change}"),
        "security": session.clone(),
        "parameters": [path_param("id", "The passkey's credential id (base64url)."), csrf_header()],
        "responses": {
            "200": json_response("Removed.", json!({ "type": "object", "properties": { "removed": { "type": "string" } } })),
            "403": error_response("Not signed in, or no CSRF token."),
            "404": error_response("The account has no such passkey."),
            "409": error_response("It is the account's last way to sign in (no password, no other passkey).")
        }
    }});
    paths["/api/me/language"] = json!({ "put": {
        "summary": format!("The language the account chose in the page: its mails are written in it. {change}"),
        "security": session,
        "parameters": [csrf_header()],
        "requestBody": json_body(json!({ "type": "object", "additionalProperties": false, "required": ["language"], "properties": {
            "language": { "enum": crate::languages::LANGUAGES }
        }})),
        "responses": {
            "200": json_response("Stored.", json!({ "type": "object", "properties": { "language": { "type": "string" } } })),
            "400": error_response("A language the UI does not offer."),
            "403": error_response("Not signed in, or no CSRF token.")
        }
    }});
    document["components"]["schemas"]["PasskeyEntry"] = json!({ "type": "object", "required": ["id", "created_at"], "properties": {
        "id": { "type": "string", "description": "The credential id, base64url." },
        "created_at": { "type": "integer" },
        "last_used_at": { "type": ["integer", "null"] }
    }});
}

/// The notices' routes (`notice_routes.rs`).
fn add_notices(document: &mut Value) {
    let session = json!([{ "sessionCookie": [] }]);
    let change = "A change made with the session cookie: needs the session's CSRF token in `X-CSRF-Token`, else 403 and nothing changes.";
    let signed_link = json!([
        { "name": "account", "in": "query", "required": true, "schema": { "type": "string", "maxLength": 64, "pattern": "^[0-9a-fA-F]+$" } },
        { "name": "sig", "in": "query", "required": true, "description": "HMAC-SHA-256 of the account, hex.", "schema": { "type": "string", "maxLength": 128 } }
    ]);
    let html = |description: &str| json!({ "description": description, "content": { "text/html": { "schema": { "type": "string" } } } });
    let settings = json!({ "$ref": "#/components/schemas/NoticeSettings" });
    let paths = &mut document["paths"];
    paths["/api/me/notices"] = json!({ "get": {
        "summary": "The account's newest notices (at most 50) and how many are unseen: whose turn, a seat replaced by a bot or taken back, a game ended. Nothing of any seat's private information.",
        "security": session.clone(),
        "responses": {
            "200": json_response("The notices.", json!({ "type": "object", "required": ["notices", "unseen"], "properties": {
                "notices": { "type": "array", "items": { "type": "object", "required": ["id", "game", "kind", "created_at", "seen"], "properties": {
                    "id": { "type": "integer" }, "game": { "type": "string" },
                    "seat": { "type": ["integer", "null"] },
                    "kind": { "enum": ["your-turn", "replaced", "returned", "ended"] },
                    "created_at": { "type": "integer" }, "seen": { "type": "boolean" }
                }}},
                "unseen": { "type": "integer" }
            }})),
            "403": error_response("Not signed in.")
        }
    }});
    paths["/api/me/notices/seen"] = json!({ "post": {
        "summary": format!("Mark the account's notices up to `up_to` seen (only those of `game`, if given). {change}"),
        "security": session.clone(),
        "parameters": [csrf_header()],
        "requestBody": json_body(json!({ "type": "object", "additionalProperties": false, "required": ["up_to"], "properties": {
            "up_to": { "type": "integer" },
            "game": { "type": "string", "maxLength": 64 }
        }})),
        "responses": {
            "200": json_response("How many were marked.", json!({ "type": "object", "properties": { "marked": { "type": "integer" } } })),
            "400": error_response("A game id too long, or a malformed body."),
            "403": error_response("Not signed in, or no CSRF token.")
        }
    }});
    paths["/api/me/notice-settings"] = json!({
        "get": {
            "summary": "The account's address for mails and which notices it wants by mail.",
            "security": session.clone(),
            "responses": {
                "200": json_response("The settings.", settings.clone()),
                "403": error_response("Not signed in.")
            }
        },
        "put": {
            "summary": format!("Store the account's settings (an empty or missing `email` removes the address). {change}"),
            "security": session,
            "parameters": [csrf_header()],
            "requestBody": json_body(settings.clone()),
            "responses": {
                "200": json_response("The settings stored.", settings),
                "400": error_response("Not an email address, or one over 254 characters."),
                "403": error_response("Not signed in, or no CSRF token.")
            }
        }
    });
    paths["/api/notices/unsubscribe"] = json!({
        "get": {
            "summary": "The page of a mail's unsubscribe link: one button that stops every notice by mail (following the link changes nothing).",
            "parameters": signed_link.clone(),
            "responses": {
                "200": html("The page."),
                "403": error_response("A forged or altered link.")
            }
        },
        "post": {
            "summary": "RFC 8058's one-click unsubscribe (or the page's button): turns every mail to the account off. Needs no session: the link's signature is the proof.",
            "parameters": signed_link,
            "responses": {
                "200": html("Unsubscribed."),
                "403": error_response("A forged or altered link."),
                "404": error_response("The account is gone.")
            }
        }
    });
    let token = json!({ "name": "token", "in": "path", "required": true, "description": "The link's one-time token (hex).", "schema": { "type": "string", "maxLength": 128 } });
    paths["/api/notices/open/{token}"] = json!({
        "get": {
            "summary": "The page of a mail's sign-in link: one button that uses it (following the link spends nothing).",
            "parameters": [token.clone()],
            "responses": {
                "200": html("The page."),
                "404": error_response("No such link.")
            }
        },
        "post": {
            "summary": "Use a mail's one-time sign-in link (good once, for 72 hours): a new session for its account, then `303 See Other` to `/#/my-games?game=ID&seat=N`, which takes the seat to this browser and opens the game at it. A link used or too old leads there without signing in. Only from the server's own page (`Sec-Fetch-Site`, `Origin`).",
            "parameters": [token],
            "responses": {
                "303": { "description": "To the game; `Set-Cookie` holds the new session when the link was good." },
                "403": error_response("Posted from another site."),
                "404": error_response("No such link.")
            }
        }
    });
    document["components"]["schemas"]["NoticeSettings"] = json!({ "type": "object", "additionalProperties": false, "required": ["mail", "your_turn", "replaced", "ended", "reminders"], "properties": {
        "email": { "type": ["string", "null"], "maxLength": 254 },
        "mail": { "type": "boolean", "description": "Mails at all (the one-click unsubscribe turns this off)." },
        "your_turn": { "type": "boolean" },
        "replaced": { "type": "boolean", "description": "A player replaced by a bot, or back." },
        "ended": { "type": "boolean" },
        "reminders": { "type": "boolean", "description": "Before a turn-based seat's time runs out." }
    }});
}

/// The operators' health routes (`health.rs`).
fn add_health(document: &mut Value) {
    let count = json!({ "type": "integer" });
    let paths = &mut document["paths"];
    paths["/api/health"] = json!({ "get": {
        "summary": "The operators' figures: games running (by pace), finished with everyone on board or completed by a bot, stalled tables (the goal is none), untimed games idle for 30 days, mails by state. Counts and public game ids only.",
        "responses": {
            "200": json_response("The figures.", json!({ "type": "object", "required": ["status", "now", "running", "running_by_pace", "finished", "stalled", "idle_untimed", "mails"], "properties": {
                "status": { "enum": ["ok", "attention"] },
                "now": count.clone(),
                "running": count.clone(),
                "running_by_pace": { "type": "object", "properties": { "live": count.clone(), "turn-based": count.clone(), "untimed": count.clone() } },
                "finished": { "type": "object", "properties": {
                    "with_people": count.clone(), "everyone_on_board": count.clone(), "completed_by_a_bot": count.clone(),
                    "everyone_on_board_share": { "type": ["number", "null"] }
                }},
                "stalled": { "type": "object", "properties": {
                    "count": count.clone(), "late_clocks": count.clone(), "idle_bots": count.clone(),
                    "games": { "type": "array", "maxItems": 20, "items": { "type": "string" } }
                }},
                "idle_untimed": count.clone(),
                "mails": { "type": "object", "description": "Mails by state: `queued`, `sending`, `sent`, `failed`, `dropped`.", "additionalProperties": count }
            }}))
        }
    }});
    paths["/api/health/page"] = json!({ "get": {
        "summary": "The same figures as a small page.",
        "responses": {
            "200": { "description": "The page.", "content": { "text/html": { "schema": { "type": "string" } } } }
        }
    }});
    paths["/api/test/clock"] = json!({ "post": {
        "summary": "Moves the server's clock on, for browser tests that play over days: only on a server started with the hidden `--test-clock` flag (else 404, as a route that does not exist), and only for the operator. Every table clock due fires and every mail due is sent.",
        "security": [{ "operatorToken": [] }],
        "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object", "additionalProperties": false, "required": ["seconds"], "properties": {
            "seconds": { "type": "integer", "minimum": 1, "maximum": crate::test_clock::MAX_ADVANCE_SECONDS, "description": "How far to move the clock on." }
        }}}}},
        "responses": {
            "200": json_response("The time the clock shows now.", json!({ "type": "object", "required": ["now"], "properties": { "now": { "type": "integer", "description": "Milliseconds since the Unix epoch." } } })),
            "400": error_response("`seconds` out of range or a malformed body."),
            "403": error_response("No operator token or a wrong one."),
            "404": error_response("The server was not started with `--test-clock`.")
        }
    }});
}

/// The CSRF header of a change made with the session cookie.
fn csrf_header() -> Value {
    json!({ "name": "X-CSRF-Token", "in": "header", "required": true, "description": "The session's CSRF token (from sign-in or `GET /api/me`).", "schema": { "type": "string" } })
}

/// `GET /api/openapi.json`
pub async fn document() -> Json<Value> {
    Json(spec())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `.route(PATH, METHOD(...))` of the API router in `lib.rs`, as (`/api` + PATH,
    /// method): read from the source, so a route added there without a description here fails.
    fn routes_in_the_router() -> Vec<(String, String)> {
        let source = include_str!("lib.rs");
        let mut found = Vec::new();
        for call in source.split(".route(").skip(1) {
            // The call runs to the next builder step.
            let call = [
                ".route(",
                ".layer(",
                ".fallback(",
                ".route_layer(",
                ".merge(",
            ]
            .iter()
            .filter_map(|next| call.find(next))
            .min()
            .map_or(call, |end| &call[..end]);
            let Some(path) = call.split('"').nth(1) else {
                continue;
            };
            for method in ["get", "post", "put", "delete"] {
                let named = call.match_indices(&format!("{method}(")).any(|(at, _)| {
                    at == 0
                        || !call.as_bytes()[at - 1].is_ascii_alphanumeric()
                            && call.as_bytes()[at - 1] != b'_'
                });
                if named {
                    found.push((format!("/api{path}"), method.to_owned()));
                }
            }
        }
        found
    }

    #[test]
    fn every_route_of_the_router_is_described_with_its_methods() {
        let routes = routes_in_the_router();
        assert!(
            routes.len() >= 50,
            "the router's routes were found: {routes:?}"
        );
        for (path, method) in ["/api/games", "/api/me/passkeys/{id}", "/api/health"]
            .into_iter()
            .zip(["post", "delete", "get"])
        {
            assert!(
                routes.contains(&(path.to_owned(), method.to_owned())),
                "{method} {path} is read from the router: {routes:?}"
            );
        }
        let document = spec();
        let missing = routes
            .iter()
            .filter(|(path, method)| !document["paths"][path.as_str()][method.as_str()].is_object())
            .collect::<Vec<_>>();
        assert!(
            missing.is_empty(),
            "routes without a description: {missing:?}"
        );
    }

    #[test]
    fn every_described_operation_is_a_route() {
        let routes = routes_in_the_router();
        let document = spec();
        for (path, item) in document["paths"].as_object().unwrap() {
            for method in item.as_object().unwrap().keys() {
                assert!(
                    routes.contains(&(path.clone(), method.clone())),
                    "{method} {path} is described but no route"
                );
            }
        }
    }
}
