// "Save as example" in the map editor, tried as a server's operator would: on a server started
// with an operator token (its own `tenka serve`, over a copy of the maps folder, so nothing is
// written into the repository), edit the sun map, save it as an example with the token (a wrong
// token first: refused, nothing written), see it offered on the Maps page and in the lobby.
// The shared server of run.sh has no token: there the control is not offered at all.
// Screenshots of the control at 1280x800 and 390x844.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BASE, launch, openPage, ROOT, shot, withBrowser } from './lib.mjs';
import { OWN_SERVER_SKIP, startOwnServer } from './own-server.mjs';

const RULESET = 'shogun';
const MAP = 'sun';
const NAME = 'test-island';
const TOKEN = 'e2e-operator-4b1d9a27c3f08e65';

/** `tenka serve` with an operator token over a copy of the maps; resolves once it serves. */
async function startServer(dir) {
  fs.cpSync(path.join(ROOT, 'maps'), path.join(dir, 'maps'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'operator-token'), `${TOKEN}\n`, { mode: 0o600 });
  return startOwnServer(dir, ['--operator-token-file', path.join(dir, 'operator-token')], { maps: path.join(dir, 'maps') });
}

/** Waits until the save dialog's status is settled (ok or error); returns its class and text. */
async function settled(page) {
  await page.waitForSelector('[data-example-status].ok, [data-example-status].error', { timeout: 30000 });
  const status = page.locator('[data-example-status]');
  return { ok: (await status.getAttribute('class')).includes('ok'), text: await status.innerText() };
}

/** Opens the editor on the sun map and waits until the server has checked it. */
async function openEditor(page, base) {
  await page.goto(`${base}/#/maps?ruleset=${RULESET}&map=${MAP}`);
  await page.click('[data-action="edit-map"]');
  await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('ok'), null, { timeout: 30000 });
}

test('the editor offers no "Save as example" on a server without an operator token', async () => {
  const rulesets = await (await fetch(`${BASE}/api/rulesets`)).json();
  assert.ok(rulesets.every((r) => r.save_examples === false), 'no ruleset may be saved to');
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await openEditor(page, BASE);
    assert.equal(await page.locator('[data-action="save-example"]').count(), 0);
    assert.ok(await page.locator('[data-action="download"]').isVisible(), 'the download stays');
    page.check();
  });
});

test('the operator saves an edited map as an example and the Maps page offers it', { skip: OWN_SERVER_SKIP, timeout: 4 * 60 * 1000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenka-e2e-examples-'));
  const server = await startServer(dir);
  const browser = await launch();
  const examples = path.join(dir, 'maps', RULESET, 'examples');
  const target = path.join(examples, `${NAME}.toml`);
  try {
    const page = await openPage(browser, { origin: server.base });
    await openEditor(page, server.base);
    // An edit an author makes in the text: a name of its own.
    const original = await page.locator('#editor-toml').inputValue();
    const edited = original.replace(/^name = ".*"$/m, 'name = "Test island"');
    assert.notEqual(edited, original);
    await page.fill('#editor-toml', edited);
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('ok'), null, { timeout: 30000 });

    // The control, beside Download.
    const button = page.locator('[data-action="save-example"]');
    await button.waitFor();
    assert.ok(await button.isEnabled());
    await button.click();
    await page.waitForSelector('[data-example-dialog][open]');
    assert.equal(await page.locator('#example-name').inputValue(), `${MAP}-edited`, 'a name is suggested');
    await page.fill('#example-name', NAME);

    // A wrong token: refused, said so, nothing written, nothing kept.
    await page.fill('#example-token', 'not-the-operator-token');
    await page.click('[data-action="save-example-submit"]');
    await page.waitForSelector('[data-example-status].error');
    assert.match(await page.locator('[data-example-status]').innerText(), /operator token/);
    assert.ok(!fs.existsSync(target), 'a refused save writes nothing');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('tenka.operator-token')), null);

    // A bad name is refused in the page before anything is sent.
    await page.fill('#example-name', 'Test Island');
    await page.fill('#example-token', TOKEN);
    await page.click('[data-action="save-example-submit"]');
    await page.waitForSelector('[data-example-status].error');
    assert.match(await page.locator('[data-example-status]').innerText(), /lowercase/);
    await page.fill('#example-name', NAME);
    await shot(page, 'examples-save-1280');

    // The right token: saved, byte for byte the panel.
    await page.click('[data-action="save-example-submit"]');
    const saved = await settled(page);
    assert.ok(saved.ok, saved.text);
    assert.match(saved.text, new RegExp(NAME));
    await shot(page, 'examples-saved-1280');
    assert.equal(fs.readFileSync(target, 'utf8'), edited, 'the file is the panel, byte for byte');
    assert.deepEqual(fs.readdirSync(examples).filter((f) => !f.endsWith('.toml')), [], 'no temporary file is left');
    // The token stays in this tab's session only.
    assert.equal(await page.evaluate(() => sessionStorage.getItem('tenka.operator-token')), TOKEN);
    assert.ok(!(await page.evaluate(() => JSON.stringify(localStorage))).includes(TOKEN), 'never in localStorage');
    assert.ok(page.urls.every((url) => !url.includes(TOKEN)), 'never in a URL');

    // Saving again under the name: refused until "Replace" is ticked.
    await page.click('[data-action="save-example-submit"]');
    const taken = await settled(page);
    assert.ok(!taken.ok);
    assert.match(taken.text, /Replace/);
    await page.click('#example-replace');
    assert.ok(await page.isChecked('#example-replace'));
    await page.click('[data-action="save-example-submit"]');
    const replaced = await settled(page);
    assert.ok(replaced.ok, replaced.text);
    assert.match(replaced.text, /replaced/);

    // The Maps page offers it, drawn, with its text.
    await page.click('[data-example-link]');
    await page.waitForFunction((name) => document.querySelector('#maps-map')?.value === name, NAME);
    await page.waitForSelector('.map-details .map-source', { state: 'attached' });
    assert.equal(await page.locator('.map-details .map-source').textContent(), edited);
    assert.match(await page.locator('#maps-map option:checked').textContent(), /Test island/);
    // And the lobby lists it among the maps to play.
    await page.goto(`${server.base}/#/`);
    await page.waitForSelector('#new-ruleset');
    await page.selectOption('#new-ruleset', RULESET);
    await page.waitForSelector(`#new-map option[value="${NAME}"]`, { state: 'attached' });
    page.check();

    // On a phone: the control and its dialog.
    const phone = await openPage(browser, { width: 390, height: 844, origin: server.base });
    await openEditor(phone, server.base);
    await phone.click('[data-action="save-example"]');
    await phone.waitForSelector('[data-example-dialog][open]');
    assert.equal(await phone.locator('#example-token').inputValue(), '', 'another tab has no token');
    await shot(phone, 'examples-save-390');
    const box = await phone.locator('[data-example-dialog]').boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 390, `the dialog fits the phone: ${JSON.stringify(box)}`);
    phone.check();
  } finally {
    await browser.close();
    server.child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(!server.log().includes(TOKEN), 'the server never logs the token');
});
