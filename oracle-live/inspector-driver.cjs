#!/usr/bin/env node
// Drives Decentraland's real web Inspector (@dcl/inspector's built app, node_modules/@dcl/inspector/public)
// in headless Chromium for scenetree's end-to-end tests (tests/inspector/), through puppeteer-core
// (the DevTools protocol; it downloads no browser).
//
//   node inspector-driver.cjs --chromium /usr/bin/chromium --data-layer ws://127.0.0.1:PORT/data-layer --profile DIR
//
// It serves the Inspector's folder on a free loopback port, opens
// index.html?dataLayerRpcWsUrl=URL and prints one JSON line when the Inspector's tree has come:
// {"ready":true,"webgl2":true,"inspector_url":…,"ms":…}. Then it reads one JSON command per line on
// stdin and answers each with one JSON line on stdout, {"ok":true,…} or {"ok":false,"error":…}:
//   {"cmd":"ping","frames":10}              the page's script still runs and draws that many more
//                                           animation frames (a frozen tab times out)
//   {"cmd":"tree","expand":[513]}           opens the listed rows that are closed (which writes
//                                           inspector::Nodes' `open` flags, as clicking their arrows
//                                           does; "expand" may be left out), then the rows drawn:
//                                           {"rows":[{"id":512,"name":"Elevator","parent":0,"closed":false},…],
//                                            "expanded":[ids of the rows it opened]}
//   {"cmd":"rename","id":512,"name":"Lift"} the row's context menu ▸ Rename, type, Enter
//   {"cmd":"set_position","id":512,"axis":"x","value":3.5}
//                                           select the row, type into the Transform's Position field, Enter
//   {"cmd":"undo"}                          the toolbar's Undo (the host's one stack for every client)
//   {"cmd":"errors"}                        {"errors":[…]}: the page's uncaught errors so far
//   {"cmd":"quit"}
// Every command may carry "timeout_ms" (default 30000): the longest it waits for what it expects.
// The driver waits on the page's DOM (mutations), never for fixed times. Its stderr says what the
// page did: uncaught errors and the CRDT messages the Inspector sent (its console's "Inspector>").
'use strict';

const fs = require('fs');
const http = require('http');
const path = require('path');
const readline = require('readline');
const puppeteer = require('puppeteer-core');

const INSPECTOR_DIR = path.join(__dirname, 'node_modules', '@dcl', 'inspector', 'public');
const DEFAULT_TIMEOUT_MS = 30000;
// Chromium on a machine with no network and no GPU: no background connections (they are refused
// many at a time here), WebGL2 through SwiftShader (the Inspector's Babylon.js viewport needs it).
const CHROMIUM_FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-extensions',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
];
// A row's closed arrow (react-icons' IoIosArrowForward) starts so; the open one points down.
const CLOSED_ARROW = 'M294.1';

function args() {
  const out = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  for (const need of ['chromium', 'data-layer', 'profile']) {
    if (!out[need]) throw new Error(`missing --${need}`);
  }
  return out;
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.wasm': 'application/wasm' };

/** A static server for the Inspector's folder on a free loopback port. */
function serve(dir) {
  const server = http.createServer((req, res) => {
    const file = path.join(dir, path.normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    if (!file.startsWith(dir)) { res.writeHead(403); res.end(); return; }
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
      res.end(data);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const rowSelector = (id) => `.Hierarchy .Tree[data-test-id="${Number(id)}"]`;

/** Every row of the Inspector's tree as it is drawn now: id, label, the row it is inside, and
 * whether it shows a closed arrow (it has children, not drawn). */
function readRows(page) {
  return page.evaluate((closedArrow) => [...document.querySelectorAll('.Hierarchy .Tree[data-test-id]')].map((row) => {
    const parent = row.parentElement && row.parentElement.closest('.Tree[data-test-id]');
    const arrow = row.querySelector(':scope > .item > .item-area > svg > path');
    const closed = !!arrow && (arrow.getAttribute('d') || '').startsWith(closedArrow);
    return { id: Number(row.dataset.testId), name: row.dataset.testLabel, parent: parent ? Number(parent.dataset.testId) : null, closed };
  }), CLOSED_ARROW);
}

/** Opens the rows `ids` that show a closed arrow, as clicking their arrows does, and waits until
 * each shows its children and the Inspector has sent the `inspector::Nodes` write that made it
 * so; returns the ids it opened. */
async function expand(page, ids, nodesSent, timeout) {
  const sentBefore = nodesSent.count;
  const clicked = await page.evaluate((wanted, closedArrow) => wanted.filter((id) => {
    const svg = document.querySelector(`.Hierarchy .Tree[data-test-id="${Number(id)}"] > .item > .item-area > svg`);
    const path = svg && svg.querySelector('path');
    if (!path || !(path.getAttribute('d') || '').startsWith(closedArrow)) return false;
    svg.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    return true;
  }), ids, CLOSED_ARROW);
  if (clicked.length === 0) return clicked;
  await page.waitForFunction((opened, closedArrow) => opened.every((id) => {
    const path = document.querySelector(`.Hierarchy .Tree[data-test-id="${id}"] > .item > .item-area > svg > path`);
    return !path || !(path.getAttribute('d') || '').startsWith(closedArrow);
  }), { polling: 'mutation', timeout }, clicked, CLOSED_ARROW);
  // Sent, so the host has it before anyone's next structural edit (an edit it had not seen
  // would tie with it on the one Nodes register, and one of the two would be lost).
  await nodesSent.after(sentBefore, timeout);
  return clicked.map(Number);
}

/** Counts the `inspector::Nodes` writes the Inspector sent (its console logs each message it sends). */
function nodesSentCounter() {
  const waiting = [];
  const counter = {
    count: 0,
    sent() {
      counter.count += 1;
      for (const w of waiting.splice(0)) w();
    },
    /** Resolves once the count exceeds `before`. */
    async after(before, timeout) {
      const deadline = Date.now() + timeout;
      while (counter.count <= before) {
        if (Date.now() > deadline) throw new Error(`the Inspector sent no inspector::Nodes write within ${timeout} ms`);
        await new Promise((resolve) => { waiting.push(resolve); setTimeout(resolve, 100); });
      }
    },
  };
  return counter;
}

/** A function that writes to stderr how long each step of `what` took. */
function trace(what) {
  let last = Date.now();
  return (step) => {
    const now = Date.now();
    process.stderr.write(`  ${what}: ${step} after ${now - last} ms\n`);
    last = now;
  };
}

/** Focuses `input`, selects its text, types `text` over it and presses Enter. The text goes in as
 * one insertion (as a paste would): each key event waits for a frame, and SwiftShader's frames
 * are slow, so typing it key by key took seconds. */
async function replaceText(page, input, text) {
  await input.focus();
  await input.evaluate((el) => el.select());
  await page.keyboard.sendCharacter(text);
  await page.keyboard.press('Enter');
}

async function rename(page, { id, name }, timeout) {
  const area = `${rowSelector(id)} > .item .selectable-area`;
  const t = trace('rename');
  await page.waitForSelector(area, { timeout });
  await page.click(area, { button: 'right' });
  t('right-clicked');
  const item = await page.waitForSelector('::-p-xpath(//*[contains(@class,"contexify_item")][normalize-space(.)="Rename"])', { timeout });
  t('menu shown');
  await item.click();
  t('Rename clicked');
  const input = await page.waitForSelector(`${rowSelector(id)} > .item input`, { timeout });
  t('field shown');
  await replaceText(page, input, String(name));
  t('typed');
  await page.waitForFunction((sel, label) => {
    const row = document.querySelector(sel);
    return row && row.dataset.testLabel === label;
  }, { polling: 'mutation', timeout }, rowSelector(id), String(name));
}

async function setPosition(page, { id, axis, value }, timeout) {
  const index = { x: 0, y: 1, z: 2 }[String(axis).toLowerCase()];
  if (index === undefined) throw new Error(`axis must be x, y or z, not ${JSON.stringify(axis)}`);
  const area = `${rowSelector(id)} > .item .selectable-area`;
  await page.waitForSelector(area, { timeout });
  const label = await page.$eval(rowSelector(id), (row) => row.dataset.testLabel);
  const t = trace('set_position');
  await page.click(area);
  t('row clicked');
  // The panel follows the selection once the Inspector applied its own Selection write.
  await page.waitForFunction((title) => {
    const t = document.querySelector('.EntityInspector .EntityHeader .Title');
    return t && t.textContent === title && document.querySelector('.EntityInspector .Transform input.input');
  }, { polling: 'mutation', timeout }, label);
  t('panel shown');
  const inputs = await page.$$('.EntityInspector .Transform input.input');
  await replaceText(page, inputs[index], String(value));
  t('typed');
}

async function undo(page, timeout) {
  const button = await page.waitForSelector('.ToolbarButton.undo', { timeout });
  await button.click();
}

/** The page's script answers and `frames` animation frames are drawn (a tab whose renderer
 * loops forever does neither); returns how many rows the tree has. */
async function ping(page, frames, timeout) {
  return withDeadline(page.evaluate((wanted) => new Promise((resolve) => {
    let drawn = 0;
    const frame = () => {
      drawn += 1;
      if (drawn >= wanted) resolve(document.querySelectorAll('.Hierarchy .Tree[data-test-id]').length);
      else requestAnimationFrame(frame);
    };
    if (wanted > 0) requestAnimationFrame(frame); else frame();
  }), frames), timeout, 'ping');
}

/** One command's work; its answer's fields. */
async function run(page, command, timeout, errors, nodesSent) {
  switch (command.cmd) {
    case 'ping': return { rows: await ping(page, command.frames || 0, timeout) };
    case 'tree': { const expanded = await expand(page, command.expand || [], nodesSent, timeout); return { rows: await readRows(page), expanded }; }
    case 'rename': await rename(page, command, timeout); return {};
    case 'set_position': await setPosition(page, command, timeout); return {};
    case 'undo': await undo(page, timeout); return {};
    case 'errors': return { errors };
    default: throw new Error(`unknown command ${JSON.stringify(command.cmd)}`);
  }
}

/** `promise`, or an error once `ms` have passed. */
async function withDeadline(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms (the page does not answer)`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function main() {
  const opts = args();
  const started = Date.now();
  const server = await serve(INSPECTOR_DIR);
  const errors = [];
  const nodesSent = nodesSentCounter();
  const browser = await puppeteer.launch({
    executablePath: opts.chromium,
    headless: true,
    userDataDir: opts.profile,
    args: CHROMIUM_FLAGS,
    defaultViewport: { width: 1024, height: 640 },
  });
  const close = async () => {
    await browser.close().catch(() => {});
    server.close();
  };
  try {
    const page = await browser.newPage();
    // The viewport's canvas is kept to 160×120 px: SwiftShader draws every frame on the CPU, and
    // at full size a frame took 200 ms on 2 busy cores, so every click and key (each waits for
    // a frame) took seconds. The renderer still runs every frame on the whole scene.
    await page.evaluateOnNewDocument(() => {
      document.addEventListener('DOMContentLoaded', () => {
        const style = document.createElement('style');
        style.textContent = 'canvas { max-width: 160px !important; max-height: 120px !important; }';
        document.head.appendChild(style);
      });
    });
    page.on('pageerror', (e) => { errors.push(String(e.message || e)); process.stderr.write(`page error: ${e.message || e}\n`); });
    page.on('console', (m) => {
      const text = m.text();
      if (!text.startsWith('Inspector>')) return;
      if (text.includes(' c=inspector::Nodes ')) nodesSent.sent();
      process.stderr.write(`${text.slice(0, 300)}\n`);
    });
    const url = `http://127.0.0.1:${server.address().port}/index.html?dataLayerRpcWsUrl=${encodeURIComponent(opts['data-layer'])}`;
    await page.goto(url, { timeout: DEFAULT_TIMEOUT_MS });
    // Row 0 is the scene's root: it comes once the data layer's snapshot reached the tree.
    await page.waitForSelector(`${rowSelector(0)}`, { timeout: 2 * DEFAULT_TIMEOUT_MS });
    const webgl2 = await page.evaluate(() => !!document.createElement('canvas').getContext('webgl2'));
    process.stdout.write(`${JSON.stringify({ ready: true, webgl2, inspector_url: url, ms: Date.now() - started })}\n`);

    const lines = readline.createInterface({ input: process.stdin });
    for await (const line of lines) {
      if (!line.trim()) continue;
      let answer;
      const begun = Date.now();
      try {
        const command = JSON.parse(line);
        const timeout = command.timeout_ms || DEFAULT_TIMEOUT_MS;
        if (command.cmd === 'quit') { await close(); process.stdout.write(`${JSON.stringify({ ok: true })}\n`); return; }
        // A frozen tab never settles a DevTools call: every command ends by its deadline.
        answer = await withDeadline(run(page, command, timeout, errors, nodesSent), timeout + 1000, command.cmd);
        answer = { ok: true, ...answer };
      } catch (e) {
        answer = { ok: false, error: String(e && e.message ? e.message : e) };
      }
      process.stderr.write(`${line.trim()}: ${answer.ok ? 'done' : 'failed'} in ${Date.now() - begun} ms\n`);
      process.stdout.write(`${JSON.stringify(answer)}\n`);
    }
  } finally {
    await close();
  }
}

main().catch((e) => {
  process.stdout.write(`${JSON.stringify({ ready: false, error: String(e && e.stack ? e.stack : e) })}\n`);
  process.exit(1);
});
