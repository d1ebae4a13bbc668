// Talks to `tenka serve` (see the HTTP API contract). Every request goes to the page's own origin:
// the UI never contacts another host.

/** An error answer of the server, with its machine code and plain-English message. */
export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.code = (body && body.error) || 'internal';
    this.body = body || {};
  }
}

/** Calls the API: `path` starts with `/api/`; a `token` authenticates a seat; `headers` adds
 * headers of the caller's (an account's CSRF token). */
export async function api(method, path, { token, body, headers: extra } = {}) {
  const headers = { Accept: 'application/json', ...extra };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch (err) {
    throw new ApiError(0, { error: 'network', message: String(err && err.message ? err.message : err) });
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { error: 'internal', message: text.slice(0, 200) };
    }
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/** GET shorthand. */
export const get = (path, token) => api('GET', path, { token });

/** POST shorthand. */
export const post = (path, body, token) => api('POST', path, { token, body });

/**
 * Follows a game's live updates. Calls `onUpdate({version, log})` for each update and keeps the
 * last version seen, so that a reconnection asks for every entry it missed. `token` (a string, or
 * a function giving the seat's current token, which a claim replaces) follows as that seat:
 * EventSource cannot send headers, so each connection first gets a single-use stream ticket with
 * the token in the Authorization header; the token itself never goes into the URL. Returns a
 * function that stops following. `onState` hears 'open', 'lost' and 'forbidden' (the token no
 * longer holds the seat; following stops).
 */
export function follow(gameId, { token, since, onUpdate, onState }) {
  let last = since || 0;
  let source = null;
  let stopped = false;
  let retry = null;
  let delay = 1000;
  const game = `/api/games/${encodeURIComponent(gameId)}`;
  const again = () => {
    if (stopped) return;
    onState && onState('lost');
    retry = setTimeout(open, delay);
    delay = Math.min(delay * 2, 15000);
  };
  const open = async () => {
    if (stopped) return;
    const params = new URLSearchParams({ since: String(last) });
    const current = typeof token === 'function' ? token() : token;
    if (current) {
      try {
        const { ticket } = await post(`${game}/stream-ticket`, undefined, current);
        params.set('ticket', ticket);
      } catch (err) {
        // A claim may have replaced the token while this ticket was asked for: try the new one.
        const replaced = typeof token === 'function' && token() !== current;
        if (err instanceof ApiError && err.status === 403 && !replaced) {
          stopped = true;
          onState && onState('forbidden');
        } else again();
        return;
      }
      if (stopped) return;
    }
    source = new EventSource(`${game}/stream?${params}`);
    source.addEventListener('open', () => {
      delay = 1000;
      onState && onState('open');
    });
    source.addEventListener('update', (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      if (typeof data.version === 'number' && data.version > last) last = data.version;
      onUpdate(data);
    });
    source.addEventListener('error', () => {
      // The browser would retry by itself with the original URL, whose ticket is spent; reopen
      // with a fresh ticket and the last version instead, so that nothing is missed and nothing
      // is received twice.
      source.close();
      again();
    });
  };
  open();
  return {
    stop() {
      stopped = true;
      clearTimeout(retry);
      if (source) source.close();
    },
    /** Records a version the client already has (from a POST answer or a /view). */
    seen(version) {
      if (version > last) last = version;
    },
  };
}
