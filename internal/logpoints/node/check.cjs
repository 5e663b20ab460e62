'use strict';
// debug-mode's add-time check of a Node.js logpoint: reads {"file", "line",
// "data"} on stdin and prints {"ok", "reason", "placement", "unchecked"}.
// It compiles the file without running it (a CommonJS function body as
// Node wraps it, or an ES module, by the file's extension and its
// package.json), asks V8 where it can stop (Debugger.getPossibleBreakpoints)
// and decides with the hook's own verdict(). A TypeScript file is first
// compiled with the esbuild (what tsx uses) or typescript found from the
// file's folder, with a source map, as a loader would. Run by debug-mode as
// node --experimental-vm-modules --no-warnings check.cjs.

const fs = require('fs');
const path = require('path');
const url = require('url');
const vm = require('vm');
// The hook's code, not its start-up: a check installs nothing.
globalThis.agentDebugModeCheck = true;
const hook = require('./hook.cjs');

function answer(v) {
  process.stdout.write(JSON.stringify(v));
}

// isModule says how Node loads the file: .mjs/.mts are ES modules,
// .cjs/.cts CommonJS, others by the nearest package.json's "type".
function isModule(file) {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.mjs' || ext === '.mts') return true;
  if (ext === '.cjs' || ext === '.cts') return false;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      return pkg && pkg.type === 'module';
    } catch (e) {
      if (e.code !== 'ENOENT') return false;
    }
    if (path.dirname(dir) === dir) return false;
  }
}

// compile compiles code as the loader would, without running it, and
// returns the scriptId V8 gave it. It tries the other kind when the first
// does not parse (a .js file of ES module syntax without "type": "module"
// fails under Node too, but its lines can still be judged). V8 reports an
// ES module's script when it is linked, not when it is compiled: it is
// linked against empty modules, which fails, after the report.
async function compile(session, code, file, module) {
  const id = url.pathToFileURL(file).href;
  let got = null;
  const listen = (m) => {
    if (m.params.url === id || m.params.url === file) got = m.params.scriptId;
  };
  session.on('Debugger.scriptParsed', listen);
  let first = null;
  try {
    for (const asModule of [module, !module]) {
      try {
        if (asModule) {
          const m = new vm.SourceTextModule(code, { identifier: id });
          await m.link((spec) => new vm.SyntheticModule([], () => {}, { identifier: 'agent-debug-mode:' + spec })).catch(() => {});
        } else {
          vm.compileFunction(code, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: file });
        }
        if (got !== null) return got;
      } catch (e) {
        if (first === null) first = e;
      }
    }
  } finally {
    session.removeListener('Debugger.scriptParsed', listen);
  }
  const e = first || new Error('V8 reported no script');
  const err = new Error(String(e.message));
  err.parse = true;
  throw err;
}

// transpile compiles TypeScript as a loader would: {code, map} or null
// when no compiler is found from the file's folder.
function transpile(src, file, module) {
  const from = [path.dirname(file)];
  const find = (name, paths) => {
    try {
      return require.resolve(name, { paths });
    } catch (e) {
      return '';
    }
  };
  let esbuild = find('esbuild', from);
  if (!esbuild) {
    const tsx = find('tsx/package.json', from);
    if (tsx) esbuild = find('esbuild', [path.dirname(tsx)]);
  }
  if (esbuild) {
    const r = require(esbuild).transformSync(src, {
      loader: 'ts', format: module ? 'esm' : 'cjs', sourcemap: 'external', sourcefile: file,
      minifyWhitespace: true, keepNames: true, target: 'node' + process.versions.node.split('.')[0],
    });
    return { code: r.code, map: r.map, by: 'esbuild' };
  }
  const tsPath = find('typescript', from);
  if (tsPath) {
    const ts = require(tsPath);
    const r = ts.transpileModule(src, {
      fileName: file,
      compilerOptions: { sourceMap: true, module: module ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    });
    return { code: r.outputText.replace(/\/\/# sourceMappingURL=.*\s*$/, ''), map: r.sourceMapText, by: 'typescript' };
  }
  return null;
}

async function main() {
  const req = JSON.parse(fs.readFileSync(0, 'utf8'));
  const file = String(req.file);
  const line = req.line | 0;
  let src;
  try {
    src = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return answer({ ok: false, reason: 'cannot read the file: ' + e.message });
  }
  const why = hook.checkData(req.data || '');
  if (why) return answer({ ok: false, reason: why });
  const real = fs.realpathSync(file);
  const module = isModule(real);
  const inspector = require('inspector');
  const session = new inspector.Session();
  session.connect();
  hook.post(session, 'Debugger.enable', {});
  let code = src;
  let map = null;
  let unchecked = '';
  if (/\.[cm]?ts$/i.test(real)) {
    let t;
    try {
      t = transpile(src, real, module);
    } catch (e) {
      const first = e && e.errors && e.errors[0];
      const where = first && first.location ? ' (line ' + first.location.line + ')' : '';
      return answer({ ok: false, reason: 'the file does not compile as TypeScript: ' + String(first ? first.text : e.message) + where });
    }
    if (!t) {
      const text = hook.lineText(src, line).trim();
      if (text === '' || text.startsWith('//') || text.startsWith('/*') || text.startsWith('*')) {
        return answer({ ok: false, reason: 'line ' + line + ' ' + (text === '' ? 'is blank' : 'is a comment') });
      }
      unchecked = 'no esbuild or typescript was found from the file\'s folder, so only blank lines and comments were checked';
      return answer({ ok: true, unchecked });
    }
    code = t.code;
    map = JSON.parse(t.map);
    map.sources = hook.mapSources(map, url.pathToFileURL(real).href).map(() => real);
    map.segs = hook.mappings(String(map.mappings || ''));
  }
  let scriptId;
  try {
    scriptId = await compile(session, code, real, module);
  } catch (e) {
    if (!e.parse) throw e;
    return answer({ ok: false, reason: 'the file does not parse: ' + e.message });
  }
  const v = hook.judge(session, scriptId, map, real, line, src);
  answer({ ok: v.ok, reason: v.reason || '', placement: v.placement || '' });
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack) + '\n');
  process.exitCode = 1;
});
