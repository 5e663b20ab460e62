'use strict';
// debug-mode logpoints for Node.js (JavaScript, and TypeScript through a
// loader that keeps source maps). It is here because debug-mode put
// `--require "<this file>"` in NODE_OPTIONS for a program under debug
// (reproduce, or eval "$(debug-mode env --session <id>)"); it is never in a
// project or in node_modules. Every Node process and worker thread of the
// program loads it first. It reads the session's logpoints
// (AGENT_DEBUG_MODE_LOGPOINTS) and, when some are for Node:
//
// * opens a same-thread node:inspector session and enables the debugger;
// * for a JavaScript file, sets one Debugger.setBreakpointByUrl per line
//   with logpoints (V8 takes one breakpoint per place: the logpoints of a
//   line share it), with a urlRegex matching the file's path and file:// URL, so
//   the file is covered whenever it loads, as a CommonJS script or an ES
//   module; for a TypeScript file, sets the breakpoint on each compiled
//   script whose source map names the file, at the generated position of
//   the logpoint's line, when the script is parsed (before it runs);
// * gives each breakpoint a condition that calls record() with a function
//   evaluating the data expression in the paused frame (its locals, closures
//   and module scope) and returns false: V8 never pauses, the program never
//   notices (what editors do for logpoints);
// * reports each logpoint installed or failed once per thread, and writes
//   a thread's first 100 records as they come; later events are queued and
//   appended in batches (a timer made at start-up and re-armed, or a full
//   queue), and what is queued is written when the thread exits;
// * past the cap, counts 1,000 held-back hits at most, then removes the
//   breakpoint (a hit costs V8 tens of microseconds even when nothing is
//   recorded).
//
// Nothing here may change what the program does: every error is swallowed,
// the only traces are a non-enumerable symbol-keyed function on globalThis,
// one 'exit' listener, an idle unref'd timer and the inspector session.
// The check (check.cjs) answers "can this line take a logpoint?" with the
// same code (verdict()).

const ENV_FILE = 'AGENT_DEBUG_MODE_LOGPOINTS';
const ENV_APPEND = 'AGENT_DEBUG_MODE_APPEND_PATH';
const ENV_CAP = 'AGENT_DEBUG_MODE_MAX_PER_LOCATION';
const DEFAULT_CAP = 10000; // sessionenv.DefaultMaxPerLocation
const LANGUAGE = 'node';
const MAX_DATA = 16000; // characters of serialized data kept per event
const FLUSH_MS = 50; // the batch timer
const MAX_BATCH = 1 << 20; // a queue this big is written at once, from the hit
const MAX_QUEUED = 100000; // events waiting at most; more are held back
const MAX_HELD = 1000; // past the cap, hits counted before the breakpoint is taken out
const DIRECT = 100; // a thread's first records are written at once
const KEY = Symbol.for('agent-debug-mode.logpoint');
const TS = /\.[cm]?ts$/i;

const fs = require('fs');
const path = require('path');
const url = require('url');

// What the writer and the hit use, taken before the program can replace it.
const { openSync, writeSync, closeSync, constants: FS } = fs;
const stringify = JSON.stringify;
const parse = JSON.parse;
const now = Date.now;
const ArrayFrom = Array.from;

// --- where a logpoint goes (shared with check.cjs) --------------------------

// lineText is line n (1-based) of src.
function lineText(src, n) {
  let start = 0;
  for (let i = 1; i < n; i++) {
    start = src.indexOf('\n', start);
    if (start < 0) return '';
    start++;
  }
  let end = src.indexOf('\n', start);
  if (end < 0) end = src.length;
  return src.slice(start, end).replace(/\r$/, '');
}

// what describes a line V8 cannot stop at.
function what(text) {
  const t = text.trim();
  if (t === '') return 'is blank';
  if (t.startsWith('//') || t.startsWith('/*') || t.startsWith('*')) return 'is a comment';
  return 'has no code V8 can stop at (a declaration line such as function f() {, a brace, a type, the inside of a string or expression that starts higher up, or code in a function nothing refers to)';
}

// verdict decides for the logpoint at line (1-based, of the file the agent
// named) from the places V8 can stop in the compiled script, each given as
// {line, column, type, orig}: orig is the line of the named file it comes
// from (the same line without a source map, null where the map names
// another file or none). It returns {ok, at, reason, placement}: at is the
// first place on that line, where the breakpoint goes.
function verdict(places, line, src) {
  let at = null;
  let next = 0;
  for (const p of places) {
    if (p.orig === line && at === null) at = p;
    if (p.orig > line && (next === 0 || p.orig < next)) next = p.orig;
  }
  const text = lineText(src, line);
  if (at === null) {
    const hint = next ? '; the next line that can take a logpoint is ' + next : '';
    return { ok: false, reason: 'line ' + line + ' ' + what(text) + hint };
  }
  let placement = '';
  if (at.type === 'return' && /^\s*\}/.test(text)) {
    placement = 'runs when the function returns at this closing brace';
  } else if (/^\s*(for|while)\b/.test(text)) {
    placement = 'runs once, when the loop starts';
    const body = places.find((p) => p.orig === line + 1);
    if (body) placement += '; line ' + (line + 1) + ' records every iteration';
  }
  return { ok: true, at, placement };
}

// checkData says why a data expression is not one JavaScript expression,
// or ''. Compiled inside ( ) and inside [ ]: text that closes one bracket to
// escape it cannot close the other, so passing both means it is one
// expression (a comma expression at most).
function checkData(expr) {
  if (!expr) return '';
  const vm = require('vm');
  for (const [open, close] of [['(', ')'], ['[', ']']]) {
    try {
      new vm.Script('(() => ' + open + '\n' + expr + '\n' + close + ')');
    } catch (e) {
      return '--data is not a JavaScript expression: ' + String(e && e.message);
    }
  }
  return '';
}

// condition is the breakpoint's condition for logpoint i.
function condition(i, expr) {
  const call = 'globalThis[Symbol.for("agent-debug-mode.logpoint")](' + i;
  return expr ? call + ', () => (\n' + expr + '\n))' : call + ')';
}

// groupCondition is the condition of the one breakpoint that serves every
// logpoint at one line (V8 takes one breakpoint per place): each records
// in turn, and the last answers false.
function groupCondition(g) {
  return g.lps.filter((lp) => !lp.failed && !lp.retired).map((lp) => condition(lp.index, lp.expr)).join(',\n');
}

// --- source maps -------------------------------------------------------------

const B64 = {};
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, i) => { B64[c] = i; });

// mappings decodes a source map's segments as [genLine, genCol, source,
// origLine, origCol] (0-based), in generated order.
function mappings(text) {
  const out = [];
  let line = 0, col = 0, src = 0, oline = 0, ocol = 0;
  let i = 0;
  const n = text.length;
  const seg = [];
  while (i < n) {
    const c = text[i];
    if (c === ';') { line++; col = 0; i++; continue; }
    if (c === ',') { i++; continue; }
    seg.length = 0;
    while (i < n && text[i] !== ',' && text[i] !== ';') {
      let v = 0, shift = 0, d;
      do {
        d = B64[text[i++]];
        if (d === undefined) return out;
        v += (d & 31) << shift;
        shift += 5;
      } while (d & 32);
      seg.push(v & 1 ? -(v >>> 1) : v >>> 1);
    }
    col += seg[0];
    if (seg.length >= 4) {
      src += seg[1]; oline += seg[2]; ocol += seg[3];
      out.push([line, col, src, oline, ocol]);
    } else {
      out.push([line, col, -1, -1, -1]);
    }
  }
  return out;
}

// readMap reads the source map a script names: a data: URL or a file
// relative to the script. null when there is none or it cannot be read.
function readMap(mapURL, scriptURL) {
  try {
    if (!mapURL) return null;
    let text;
    if (mapURL.startsWith('data:')) {
      const comma = mapURL.indexOf(',');
      const head = mapURL.slice(0, comma);
      const body = mapURL.slice(comma + 1);
      text = head.endsWith(';base64') ? Buffer.from(body, 'base64').toString('utf8') : decodeURIComponent(body);
      return { text, base: scriptURL };
    }
    const base = toURL(scriptURL);
    const u = new URL(mapURL, base);
    if (u.protocol !== 'file:') return null;
    const file = url.fileURLToPath(u);
    if (fs.statSync(file).size > 32 << 20) return null;
    return { text: fs.readFileSync(file, 'utf8'), base: u.href };
  } catch (e) {
    return null;
  }
}

function toURL(p) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(p) && !/^[a-z]:[\\/]/i.test(p)) return p;
  return url.pathToFileURL(p).href;
}

// realOf is a path with symbolic links resolved, or the path.
function realOf(p) {
  try {
    return fs.realpathSync(p);
  } catch (e) {
    return p;
  }
}

// mapSources gives each of a source map's sources its real path (null for
// one that is not a file).
function mapSources(map, base) {
  const root = map.sourceRoot || '';
  return (map.sources || []).map((s) => {
    try {
      if (s == null) return null;
      let full = root ? root.replace(/\/?$/, '/') + s : s;
      if (full.startsWith('/') && !full.startsWith('//')) return realOf(path.normalize(full));
      const u = new URL(full, toURL(base));
      return u.protocol === 'file:' ? realOf(url.fileURLToPath(u)) : null;
    } catch (e) {
      return null;
    }
  });
}

// origLines maps each place V8 can stop (locations of
// Debugger.getPossibleBreakpoints) to the line of the file it comes from:
// the nearest segment at or before it on its generated line.
function origLines(locations, segs, sourceIndex) {
  const out = [];
  let j = 0;
  for (const loc of locations) {
    while (j + 1 < segs.length && (segs[j + 1][0] < loc.lineNumber || (segs[j + 1][0] === loc.lineNumber && segs[j + 1][1] <= loc.columnNumber))) j++;
    while (j > 0 && (segs[j][0] > loc.lineNumber || (segs[j][0] === loc.lineNumber && segs[j][1] > loc.columnNumber))) j--;
    let s = segs[j];
    // A return's place is just past its value, where the next segment (a
    // closing brace, often of the next line) starts: it belongs to the
    // segment before.
    if (loc.type === 'return' && s && j > 0 && s[0] === loc.lineNumber && s[1] === loc.columnNumber && segs[j - 1][0] === loc.lineNumber) s = segs[j - 1];
    let orig = null;
    if (s && s[0] === loc.lineNumber && s[1] <= loc.columnNumber && s[2] === sourceIndex) orig = s[3] + 1;
    out.push({ line: loc.lineNumber, column: loc.columnNumber, type: loc.type || '', orig });
  }
  return out;
}

// AHEAD is how far a refused line's hint looks for the next line that can
// take a logpoint.
const AHEAD = 60;

// judge decides for the logpoint at line of realFile in a parsed script
// (map: its source map, null when the script is the file itself), as
// verdict() does, asking V8 only about the lines it needs: a function V8
// has been asked about is prepared for breaking and no longer optimized,
// so the rest of the file keeps its speed.
function judge(session, scriptId, map, realFile, line, src) {
  let ps = places(session, scriptId, map, realFile, line, line + 1);
  const v = verdict(ps, line, src);
  if (v.ok || ps.some((p) => p.orig > line)) return v;
  ps = ps.concat(places(session, scriptId, map, realFile, line + 2, line + AHEAD));
  return verdict(ps, line, src);
}

// places lists where V8 can stop in a parsed script for lines from..to of
// realFile, each with the line it comes from.
function places(session, scriptId, map, realFile, from, to) {
  const ask = (start, end) => {
    const locs = post(session, 'Debugger.getPossibleBreakpoints', { start: { scriptId, ...start }, end: { scriptId, ...end }, restrictToFunction: false }).locations || [];
    return locs.sort((a, b) => a.lineNumber - b.lineNumber || a.columnNumber - b.columnNumber);
  };
  if (!map) {
    return ask({ lineNumber: from - 1, columnNumber: 0 }, { lineNumber: to, columnNumber: 0 })
      .map((l) => ({ line: l.lineNumber, column: l.columnNumber, type: l.type || '', orig: l.lineNumber + 1 }));
  }
  const idx = map.sources.indexOf(realFile);
  const range = genRange(map.segs, idx, from, to);
  if (!range) return [];
  // esbuild's keepNames adds __name(f, "f") after a function, mapped to its
  // declaration line: it runs once, when the function is defined, as no
  // declaration line does in JavaScript, so it is not a place for a logpoint.
  const gen = (post(session, 'Debugger.getScriptSource', { scriptId }).scriptSource || '').split('\n');
  return origLines(ask(range[0], range[1]), map.segs, idx)
    .filter((p) => p.orig !== null && p.orig >= from && p.orig <= to && !(gen[p.line] || '').startsWith('__name(', p.column));
}

// genRange is the generated range [start, end) that the segments of lines
// from..to of source idx cover, or null: each segment reaches to the next
// one's start, and one column past it (where a return's place is).
function genRange(segs, idx, from, to) {
  let start = null, end = null;
  const less = (a, b) => a.lineNumber < b.lineNumber || (a.lineNumber === b.lineNumber && a.columnNumber < b.columnNumber);
  for (let j = 0; j < segs.length; j++) {
    const s = segs[j];
    if (s[2] !== idx || s[3] + 1 < from || s[3] + 1 > to) continue;
    const a = { lineNumber: s[0], columnNumber: s[1] };
    const n = segs[j + 1];
    const b = n ? { lineNumber: n[0], columnNumber: n[1] + 1 } : { lineNumber: s[0] + 1, columnNumber: 0 };
    if (start === null || less(a, start)) start = a;
    if (end === null || less(end, b)) end = b;
  }
  return start === null ? null : [start, end];
}

// post calls an inspector method; a same-thread session answers at once.
function post(session, method, params) {
  let err = null, res = null;
  session.post(method, params, (e, r) => { err = e; res = r; });
  if (err) throw err;
  return res || {};
}

// --- the hook ----------------------------------------------------------------

const st = {
  table: [], // logpoints by index, the index their condition passes
  append: '',
  cap: DEFAULT_CAP,
  process: '',
  direct: DIRECT,
  queue: [],
  queued: 0, // characters in queue
  timer: null,
  session: null,
  context: null, // the execution context the hook runs in, where record() is
};

function load() {
  const file = process.env[ENV_FILE];
  const append = process.env[ENV_APPEND];
  if (!file || !append) return [];
  let raw;
  try {
    if (fs.statSync(file).size > 8 << 20) return [];
    raw = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return [];
  }
  if (raw.indexOf('"' + LANGUAGE + '"') < 0) return [];
  const doc = parse(raw);
  if (!doc || doc.version !== 1) return [];
  st.append = append;
  return (doc.logpoints || []).filter((lp) => lp && lp.language === LANGUAGE);
}

const SELF = url.pathToFileURL(__filename).href;

function urlPath(u) {
  try {
    return u.startsWith('file:') ? url.fileURLToPath(u) : u;
  } catch (e) {
    return u;
  }
}

function escapeRe(s) {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function start() {
  const specs = load();
  if (specs.length === 0) return;
  const cap = parseInt(process.env[ENV_CAP] || '', 10);
  st.cap = cap > 0 ? cap : DEFAULT_CAP;
  let thread = 0;
  try {
    thread = require('worker_threads').threadId;
  } catch (e) { /* no worker_threads */ }
  st.process = process.pid + '-' + now() + (thread ? '-t' + thread : '');
  for (const spec of specs) {
    const lp = {
      index: st.table.length,
      id: String(spec.id),
      line: spec.line | 0,
      location: String(spec.location),
      hyp: String(spec.hypothesisId),
      msg: String(spec.message),
      expr: spec.data ? String(spec.data) : '',
      file: String(spec.file || spec.realFile),
      real: realOf(String(spec.realFile || spec.file)),
      sent: 0,
      held: 0,
      reported: false,
      failed: false,
      retired: false,
      group: null,
    };
    lp.prefix = '{"hypothesisId":' + stringify(lp.hyp) + ',"location":' + stringify(lp.location) + ',"message":' + stringify(lp.msg) + ',"data":';
    st.table.push(lp);
    const key = lp.real + '\0' + lp.line;
    if (!groups.has(key)) groups.set(key, { lps: [], breakpoints: [], file: lp.file, real: lp.real, line: lp.line });
    lp.group = groups.get(key);
    lp.group.lps.push(lp);
  }
  Object.defineProperty(globalThis, KEY, { value: record, enumerable: false, configurable: true, writable: false });
  // The batch timer is made here, in the hook's own async context, and
  // re-armed with refresh() by the first event into an empty queue: a hit
  // creates no timer (nothing for the program's async hooks to see).
  st.timer = setTimeout(tick, FLUSH_MS);
  st.timer.unref();
  process.on('exit', atExit);

  const inspector = require('inspector');
  const session = new inspector.Session();
  session.connect();
  st.session = session;
  const byURL = new Map(); // script URL or path → [group] (JavaScript)
  const mapped = new Map(); // real path → [group] (TypeScript)
  for (const lp of st.table) {
    const why = checkData(lp.expr);
    if (why) fail(lp, why);
  }
  for (const g of groups.values()) {
    if (g.lps.every((lp) => lp.failed)) continue;
    if (TS.test(g.real)) {
      if (!mapped.has(g.real)) mapped.set(g.real, []);
      mapped.get(g.real).push(g);
      continue;
    }
    for (const p of new Set([g.real, g.file])) {
      for (const k of [p, url.pathToFileURL(p).href]) {
        if (!byURL.has(k)) byURL.set(k, []);
        if (!byURL.get(k).includes(g)) byURL.get(k).push(g);
      }
    }
  }
  session.on('Debugger.scriptParsed', (m) => {
    try {
      parsed(session, m.params, byURL, mapped);
    } catch (e) { /* the script runs without its logpoints */ }
  });
  session.on('Debugger.breakpointResolved', (m) => {
    try {
      resolved(session, m.params);
    } catch (e) { /* ignored */ }
  });
  post(session, 'Debugger.enable', {});
  for (const g of groups.values()) {
    if (g.lps.every((lp) => lp.failed) || TS.test(g.real)) continue;
    const urls = [...new Set([g.real, g.file])].flatMap((p) => [escapeRe(p), escapeRe(url.pathToFileURL(p).href)]);
    let r;
    try {
      r = post(session, 'Debugger.setBreakpointByUrl', {
        lineNumber: g.line - 1, columnNumber: 0, urlRegex: '^(?:' + urls.join('|') + ')$', condition: groupCondition(g),
      });
    } catch (e) {
      for (const lp of g.lps) fail(lp, 'V8 refused the breakpoint: ' + String(e && e.message));
      continue;
    }
    g.breakpoints.push(r.breakpointId);
    bpOwner.set(r.breakpointId, g);
    for (const loc of r.locations || []) resolved(session, { breakpointId: r.breakpointId, location: loc });
  }
}

const groups = new Map(); // file and line → the logpoints there, and their breakpoints
const bpOwner = new Map(); // breakpoint id → group

// parsed runs when V8 has compiled a script, before it runs: JavaScript
// logpoints of that file are checked (their breakpoint by URL is being
// placed), TypeScript ones placed through the script's source map.
function parsed(session, p, byURL, mapped) {
  if (st.context === null && p.url === SELF) st.context = p.executionContextId;
  if (st.context !== null && p.executionContextId !== st.context) {
    // Code run in a vm context of its own (Jest's test files, say) has a
    // global of its own, where the condition cannot reach record().
    const gs = byURL.get(p.url) || mapped.get(realOf(urlPath(p.url))) || [];
    for (const lp of gs.flatMap((g) => g.lps)) {
      report(lp, 'failed', path.basename(lp.real) + ' was run in a vm context of its own (a test runner\'s sandbox, such as Jest\'s), where a logpoint cannot record; run that code outside the sandbox, or use a code probe');
    }
    return;
  }
  const gs = byURL.get(p.url);
  if (gs) {
    const src = post(session, 'Debugger.getScriptSource', { scriptId: p.scriptId }).scriptSource || '';
    for (const g of gs) {
      const lps = g.lps.filter((lp) => !lp.failed && !lp.retired);
      if (lps.length === 0) continue;
      const v = judge(session, p.scriptId, null, '', g.line, src);
      if (!v.ok) unset(session, g);
      for (const lp of lps) {
        if (v.ok) report(lp, 'installed', '');
        else fail(lp, v.reason);
      }
    }
  }
  if (mapped.size === 0 || !p.sourceMapURL || p.url.startsWith('node:') || p.url.indexOf('/node_modules/') >= 0) return;
  const m = readMap(p.sourceMapURL, p.url);
  if (!m) return;
  let hit = false;
  for (const f of mapped.keys()) {
    if (m.text.indexOf(path.basename(f)) >= 0) hit = true;
  }
  if (!hit) return;
  const map = parse(m.text);
  map.sources = mapSources(map, m.base);
  const todo = [];
  for (const [f, lps] of mapped) {
    if (map.sources.includes(f)) todo.push([f, lps]);
  }
  if (todo.length === 0) return;
  map.segs = mappings(String(map.mappings || ''));
  for (const [f, gs] of todo) {
    let src = '';
    try {
      src = fs.readFileSync(f, 'utf8');
    } catch (e) { /* the reason then quotes no line */ }
    for (const g of gs) {
      const lps = g.lps.filter((lp) => !lp.failed && !lp.retired);
      if (lps.length === 0) continue;
      const v = judge(session, p.scriptId, map, f, g.line, src);
      if (!v.ok) {
        for (const lp of lps) fail(lp, v.reason);
        continue;
      }
      let r;
      try {
        r = post(session, 'Debugger.setBreakpoint', {
          location: { scriptId: p.scriptId, lineNumber: v.at.line, columnNumber: v.at.column }, condition: groupCondition(g),
        });
      } catch (e) {
        for (const lp of lps) report(lp, 'failed', 'V8 refused the breakpoint: ' + String(e && e.message));
        continue;
      }
      g.breakpoints.push(r.breakpointId);
      for (const lp of lps) report(lp, 'installed', '');
    }
  }
}

// resolved checks where a breakpoint by URL landed: V8 moves one on a line
// it cannot stop at to the next line that it can, where it must not record.
function resolved(session, p) {
  const g = bpOwner.get(p.breakpointId);
  const lps = g ? g.lps.filter((lp) => !lp.failed && !lp.retired) : [];
  if (lps.length === 0) return;
  if (p.location.lineNumber === g.line - 1) {
    for (const lp of lps) report(lp, 'installed', '');
    return;
  }
  const src = post(session, 'Debugger.getScriptSource', { scriptId: p.location.scriptId }).scriptSource || '';
  const v = judge(session, p.location.scriptId, null, '', g.line, src);
  unset(session, g);
  for (const lp of lps) fail(lp, v.ok ? 'V8 placed it on line ' + (p.location.lineNumber + 1) : v.reason);
}

function unset(session, g) {
  for (const id of g.breakpoints) {
    try {
      post(session, 'Debugger.removeBreakpoint', { breakpointId: id });
    } catch (e) { /* gone */ }
  }
  g.breakpoints = [];
}

function fail(lp, reason) {
  lp.failed = true;
  report(lp, 'failed', reason);
}

// --- hits and the writer -----------------------------------------------------

// record is the call in a logpoint's condition; it always answers false,
// so V8 never pauses.
function record(i, thunk) {
  try {
    const lp = st.table[i];
    if (lp === undefined || lp.failed) return false;
    if (lp.retired) return false;
    if (lp.sent >= st.cap || st.queue.length >= MAX_QUEUED) {
      lp.held++;
      if (lp.held === 1) heldBack(lp);
      else if (!st.heldGrew) { // the writer reports the count as it grows (armed once per tick, never postponed)
        st.heldGrew = true;
        if (st.queue.length === 0 && st.timer) st.timer.refresh();
      }
      if (lp.held >= MAX_HELD && lp.sent >= st.cap) retire(lp);
      return false;
    }
    lp.sent++;
    let text = 'null';
    if (thunk !== undefined) {
      let v;
      try {
        v = thunk();
      } catch (e) {
        let why = describe(e);
        // A closure keeps only the outer variables it uses: the others are
        // gone by the time it runs, which the bare message does not say.
        if (e instanceof ReferenceError && / is not defined$/.test(why)) why += ' (not visible here: a typo, or an outer variable this function does not use, which V8 does not keep)';
        v = { agentDebugLogpointError: why };
      }
      text = serialize(v);
    }
    enqueue(lp.prefix + text + ',"timestamp":' + now() + '}\n');
  } catch (e) { /* never into the program */ }
  return false;
}

// retire takes a logpoint past its cap out of the program: each hit of a
// breakpoint costs V8 tens of microseconds even when nothing is recorded,
// so past MAX_HELD held-back hits the count stops (at least that many) and
// the line runs at full speed again once no logpoint there is left.
function retire(lp) {
  lp.retired = true;
  heldBack(lp); // the final count, at once: a process killed later has reported it
  if (lp.group.lps.every((o) => o.retired || o.failed)) unset(st.session, lp.group);
}

function describe(e) {
  let text;
  try {
    if (e !== null && typeof e === 'object' && typeof e.name === 'string') {
      const msg = typeof e.message === 'string' ? e.message : '';
      text = e.name + (msg ? ': ' + msg : '');
    } else {
      text = typeof e + ': ' + String(e);
    }
  } catch (x) {
    text = '<unprintable>';
  }
  return text.slice(0, 300);
}

function replacer(k, v) {
  switch (typeof v) {
    case 'bigint': return v.toString();
    case 'function': return '<function ' + (v.name || 'anonymous') + '>';
    case 'symbol': return v.toString();
    case 'object':
      if (v === null) return v;
      if (v instanceof Map) return ArrayFrom(v);
      if (v instanceof Set) return ArrayFrom(v);
      if (v instanceof Error) return describe(v);
      if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return ArrayFrom(v.length > 1000 ? v.subarray(0, 1000) : v);
      return v;
    default: return v;
  }
}

function serialize(v) {
  let text;
  try {
    text = stringify(v, replacer);
    if (text === undefined) text = 'null';
  } catch (e) {
    text = stringify({ agentDebugUnserializable: describe(e).slice(0, 200) });
  }
  if (text.length > MAX_DATA) {
    text = stringify({ agentDebugTruncated: true, bytes: Buffer.byteLength(text), preview: text.slice(0, 1000) });
  }
  return text;
}

function heldBack(lp) {
  lp.heldSent = lp.held;
  enqueue('{"agentDebugHeldBack":{"hypothesisId":' + stringify(lp.hyp) + ',"location":' + stringify(lp.location) +
    ',"process":' + stringify(st.process) + ',"count":' + lp.held + ',"cap":' + st.cap + '}}\n');
}

function report(lp, state, reason) {
  if (lp.reported) return;
  lp.reported = true;
  const rec = { id: lp.id, state, process: st.process };
  if (reason) rec.reason = reason.slice(0, 390);
  enqueue(stringify({ agentDebugLogpoint: rec }) + '\n');
}

function enqueue(line) {
  const idle = st.queue.length === 0;
  st.queue[st.queue.length] = line;
  st.queued += line.length;
  if (st.direct > 0) {
    // A thread's first records are written here and now: a short-lived
    // process, or one its parent kills, keeps them.
    st.direct--;
    drain();
  } else if (st.queued >= MAX_BATCH) {
    drain();
  } else if (idle && st.timer) {
    st.timer.refresh();
  }
}

function drain() {
  if (st.queue.length === 0) return;
  const data = st.queue.join('');
  st.queue = [];
  st.queued = 0;
  let fd = -1;
  try {
    fd = openSync(st.append, FS.O_WRONLY | FS.O_APPEND | FS.O_CREAT | (FS.O_NOFOLLOW || 0) | (FS.O_CLOEXEC || 0), 0o600);
    const buf = Buffer.from(data, 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
  } catch (e) {
    /* the session's folder is gone: nothing to keep */
  } finally {
    if (fd >= 0) {
      try {
        closeSync(fd);
      } catch (e) { /* closed */ }
    }
  }
}

// tick is the writer's timer: held-back counts that grew since they were
// last sent (a running total: the service keeps each process's largest),
// then the queue, so a program killed later has reported them.
function tick() {
  try {
    st.heldGrew = false;
    for (const lp of st.table) {
      if (lp.held > (lp.heldSent || 0)) heldBack(lp);
    }
    drain();
  } catch (e) { /* never into the program */ }
}

function atExit() {
  tick();
}

module.exports = { verdict, judge, checkData, places, post, readMap, mapSources, mappings, lineText };

if (require.main !== module && globalThis.agentDebugModeCheck !== true) {
  try {
    start();
  } catch (e) { /* the program runs without logpoints */ }
  // Preloaded (--require): the program's require.cache stays its own.
  if (require.main === undefined) delete require.cache[__filename];
}
