// What the play-over-days test needs around the browser: a loopback SMTP server that keeps every
// mail the server sends, a `tenka serve` of the test's own with a movable clock (`--test-clock`,
// behind an operator token) and that SMTP server as its relay, and the mails' links.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startOwnServer } from './own-server.mjs';

/**
 * A tiny SMTP server on loopback (no TLS, no authentication) that accepts every mail and keeps
 * it as {from, to, data}: enough for the relay `--smtp-url smtp://127.0.0.1:<port>` of a test.
 */
export async function startSmtpSink() {
  const mails = [];
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.setEncoding('latin1');
    let buffer = '';
    let mail = null;
    let inData = false;
    const reply = (line) => socket.write(`${line}\r\n`);
    reply('220 localhost test sink');
    socket.on('data', (chunk) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          // Dot-stuffing undone: a line starting with two dots had one added.
          mail.data = buffer.slice(0, end).replace(/^\.\./gm, '.');
          buffer = buffer.slice(end + 5);
          inData = false;
          mails.push(mail);
          mail = null;
          reply('250 kept');
          continue;
        }
        const end = buffer.indexOf('\r\n');
        if (end < 0) return;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') reply('250-localhost\r\n250 8BITMIME');
        else if (verb === 'HELO') reply('250 localhost');
        else if (verb === 'MAIL') {
          mail = { from: line.slice(10).trim(), to: [], data: '' };
          reply('250 ok');
        } else if (verb === 'RCPT') {
          mail?.to.push(line.slice(8).trim().replace(/^<|>$/g, ''));
          reply('250 ok');
        } else if (verb === 'DATA') {
          inData = true;
          reply('354 end with a dot');
        } else if (verb === 'QUIT') {
          reply('221 bye');
          socket.end();
        } else reply('250 ok');
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    mails,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** A mail's header value by name (continuation lines unfolded). */
export function header(mail, name) {
  const head = mail.data.split('\r\n\r\n')[0].replace(/\r\n[ \t]+/g, ' ');
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line ? decodeWords(line.slice(name.length + 1).trim()) : null;
}

/** A header's RFC 2047 encoded words (`=?utf-8?b?…?=`, `=?utf-8?q?…?=`) as text: mails are worded in the account's language. */
function decodeWords(value) {
  return value.replace(/\?=\s+=\?/g, '?==?').replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (_, charset, kind, text) => {
    const bytes = kind.toLowerCase() === 'b'
      ? Buffer.from(text, 'base64')
      : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (__, hex) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
    return new TextDecoder(charset).decode(bytes);
  });
}

/** A mail's body, decoded when it is quoted-printable or base64. */
export function body(mail) {
  const text = mail.data.split('\r\n\r\n').slice(1).join('\r\n\r\n');
  const encoding = header(mail, 'Content-Transfer-Encoding') || '';
  if (/base64/i.test(encoding)) return Buffer.from(text.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (!/quoted-printable/i.test(encoding)) return text;
  const bytes = Buffer.from(text.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
  return bytes.toString('utf8');
}

/** Waits until a mail matching `check` has arrived; returns it. */
export async function waitForMail(sink, check, what, timeout = 30000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const found = sink.mails.find(check);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no mail ${what} arrived; got: ${sink.mails.map((m) => `${m.to} ${header(m, 'Subject')}`).join(' | ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `tenka serve` of the test's own, in `dir`: a movable clock (`--test-clock`, moved with
 * `token`), the SMTP sink as its relay, fixed seeds allowed. Resolves once it serves.
 */
export async function startDaysServer(dir, { token, smtpPort }) {
  fs.writeFileSync(path.join(dir, 'operator-token'), `${token}\n`, { mode: 0o600 });
  return startOwnServer(dir, (base) => [
    '--allow-fixed-seeds', '--no-watch', '--default-ruleset', 'shogun', '--requests-per-second', '0',
    '--operator-token-file', path.join(dir, 'operator-token'), '--test-clock',
    '--smtp-url', `smtp://127.0.0.1:${smtpPort}`, '--mail-from', 'Tenka <tenka@example.org>', '--public-url', base,
  ]);
}

/** Moves the server's clock on by `seconds` (`POST /api/test/clock`); the response. */
export function advanceClock(base, token, seconds) {
  return fetch(`${base}/api/test/clock`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ seconds }),
  });
}

/** A spectator's view of a game on `base`. */
export async function spectate(base, gameId) {
  const response = await fetch(`${base}/api/games/${encodeURIComponent(gameId)}/view`);
  if (!response.ok) throw new Error(`view of ${gameId}: ${response.status}`);
  return response.json();
}

/** Polls the spectator's view until `check` holds (bots and timers move on their own). */
export async function waitForView(base, gameId, check, what, timeout = 60000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const view = await spectate(base, gameId);
    if (check(view)) return view;
    if (Date.now() > deadline) throw new Error(`never ${what}: ${JSON.stringify({ version: view.version, status: view.status, waiting: view.waiting_for })}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
