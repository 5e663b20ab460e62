"""debug-mode logpoints for CPython 3.8 and later.

The sitecustomize.py beside this file imports it at start-up, because
debug-mode put this folder on PYTHONPATH. It reads the session's logpoints
(AGENT_DEBUG_MODE_LOGPOINTS) and, when some are for Python files:

* puts a finder first on sys.meta_path that hands only the files with
  logpoints to a loader which compiles them, in memory, with one statement
  inserted before the statement at each logpoint's line (same file name, same
  line numbers, no .pyc written); every other module takes the normal path;
* when the main script (python3 path/to/script.py) has logpoints, adds an
  audit hook that runs it instrumented instead (the interpreter does not
  import the main script, so no finder sees it); -m and packages go through
  the finder;
* writes a process's first 100 records to AGENT_DEBUG_MODE_APPEND_PATH as
  they come, then queues each hit's event in memory and appends the queue
  from a writer thread, a batch per write, stopping it before a fork (Python
  3.12 warns about forking a process that runs threads) and flushing at exit
  and before os._exit.

Nothing here may change what the program does: every error is swallowed, the
program's sys.path, builtins and module namespaces are left as they were, and
the only trace is this module in sys.modules.

`python3 -I -S -c ... check` runs check_main(), which answers debug-mode's
question "can this line take a logpoint?" with the very code the hook uses.
"""

import os
import sys

_ENV_FILE = "AGENT_DEBUG_MODE_LOGPOINTS"
_ENV_APPEND = "AGENT_DEBUG_MODE_APPEND_PATH"
_ENV_CAP = "AGENT_DEBUG_MODE_MAX_PER_LOCATION"
_DEFAULT_CAP = 10000  # sessionenv.DefaultMaxPerLocation
_MAX_DATA = 16000  # bytes of serialized data kept per event
_FLUSH_EVERY = 0.05  # seconds between the writer's batches
_IDLE_EXIT = 0.5  # the writer thread ends after this long with nothing to write (an idle thread still costs I/O-heavy code a little)
_MAX_BATCH = 1 << 20
_MAX_QUEUED = 100000  # events waiting at most; more are counted as held back
_DIRECT = 100  # the first records of a process are written by the caller, at once
_SELF = __name__

# The functions the writer uses, taken before the program can replace them
# (gevent's monkey-patching, pyfakefs): logpoints keep writing to the real file.
_open, _write, _close, _getpid = os.open, os.write, os.close, os.getpid


class _LP(object):
    __slots__ = ("id", "line", "location", "hyp", "msg", "expr", "code", "nested",
                 "prefix", "sent", "held", "reported", "file")


class _State(object):
    pass


_s = _State()
_s.table = []  # _LP by index, the index the inserted statement passes
_s.by_file = {}  # real path → [_LP]
_s.stems = set()  # last components of module names worth a look
_s.main = None  # (path, real path) of the main script, while it waits to run
_s.sigint = False
_s.append = None
_s.cap = _DEFAULT_CAP
_s.process = ""
_s.direct = _DIRECT


# --- where a logpoint goes ------------------------------------------------

class Refused(Exception):
    """The line cannot take a logpoint; str() is one sentence saying why."""


def _line_kinds(src):
    """Classify lines by their tokens: {line: 'code'}, plus the lines inside
    a multi-line string and the lines holding only a comment."""
    import io
    import tokenize
    code, inside, comment = set(), {}, set()
    skip = (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING, tokenize.ENDMARKER)
    for tok in tokenize.tokenize(io.BytesIO(src).readline):
        if tok.type in skip:
            continue
        if tok.type == tokenize.COMMENT:
            comment.add(tok.start[0])
            continue
        code.add(tok.start[0])
        for n in range(tok.start[0] + 1, tok.end[0] + 1):
            inside.setdefault(n, tok.start[0])
    return code, inside, comment


def _start(node):
    decs = getattr(node, "decorator_list", None)
    return min([node.lineno] + [d.lineno for d in decs]) if decs else node.lineno


def _blocks(node):
    """The statement lists of a compound statement in source order, each with
    the line of the clause that opens it (None: an else or finally, found as
    the one line of code before the list) and what a logpoint on that clause
    line means. The first list is the statement's own body, whose opener is
    the statement's first line (handled by the caller)."""
    import ast
    out = []
    if getattr(node, "body", None) and not isinstance(node, getattr(ast, "Match", ())):
        out.append((node.body, node.lineno, None))
    for h in getattr(node, "handlers", ()):
        out.append((h.body, h.lineno, "runs when this except clause catches"))
    for c in getattr(node, "cases", ()):
        out.append((c.body, c.pattern.lineno, "runs when this case matches"))
    orelse = getattr(node, "orelse", None)
    if orelse:
        note = "runs when the else branch is entered"
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            note = "runs when the loop ends without break"
        elif isinstance(node, ast.Try) or isinstance(node, getattr(ast, "TryStar", ())):
            note = "runs when the try block ends without an exception"
        out.append((orelse, None, note))
    if getattr(node, "finalbody", None):
        out.append((node.finalbody, None, "runs when the finally block is entered"))
    return out


def _first_code(stmts):
    return _start(stmts[0])


def _locate(stmts, line):
    for i, s in enumerate(stmts):
        if line < _start(s):
            return None
        if line <= s.end_lineno:
            return _inside(stmts, i, s, line)
    return None


def _inside(stmts, i, s, line):
    import ast
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        body = _first_code(s.body)
        if line < body or (line == s.lineno and body != line):
            if isinstance(s, ast.ClassDef):
                what, when, use = "class " + s.name, "the class is created", "the first line of its body"
            else:
                what, when, use = "def " + s.name, s.name + " is defined", "the first line of its body, to record each call"
            where = "a decorator of " if line < s.lineno else ("inside the header of " if line > s.lineno else "the first line of ")
            raise Refused("line %d is %s%s: a logpoint there would run once, when %s; put it on line %d, %s"
                          % (line, where, what, when, body, use))
        return _locate(s.body, line) or _refuse_inside(line, s.lineno)
    if line == s.lineno:
        note = None
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            note = "runs once, when the loop is reached"
            if _first_code(s.body) != line:
                note += "; line %d records every iteration" % _first_code(s.body)
        return stmts, i, note
    prev_end = s.lineno
    for body, opener, note in _blocks(s):
        bstart = _first_code(body)
        if line < bstart:
            if opener is None and line > prev_end:
                return body, 0, note  # the else: or finally: line
            if opener is not None and opener != s.lineno and line == opener:
                return body, 0, note  # an except or case line
            _refuse_inside(line, opener if opener is not None and opener <= line else s.lineno)
        if line <= body[-1].end_lineno:
            return _locate(body, line) or _refuse_inside(line, s.lineno)
        prev_end = body[-1].end_lineno
    return _refuse_inside(line, s.lineno)


def _refuse_inside(line, start):
    raise Refused("line %d is inside the statement that starts at line %d; put the logpoint on line %d" % (line, start, start))


def _is_docstring(node):
    import ast
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _is_future(node):
    import ast
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def place(tree, src, line, kinds=None):
    """Where a logpoint at line goes: (statement list, index to insert at,
    note or None). Raises Refused with the reason when it cannot go there.
    kinds is _line_kinds(src), when the caller has it."""
    kinds = kinds or _line_kinds(src)
    code, inside, comment = kinds
    if line not in code:
        if line in inside:
            raise Refused("line %d is inside the string that starts at line %d%s" % (line, inside[line], _next_hint(tree, src, kinds, line)))
        what = "a comment" if line in comment else "blank"
        raise Refused("line %d is %s%s" % (line, what, _next_hint(tree, src, kinds, line)))
    where = _locate(tree.body, line)
    if where is None:
        raise Refused("line %d holds no statement" % line)
    stmts, i, note = where
    # A docstring and __future__ imports must stay first: a logpoint before
    # them goes right after them (they do nothing at run time).
    if i == 0 and stmts and _is_docstring(stmts[0]) and _owns_docstring(tree, stmts):
        i = 1
    if stmts is tree.body:
        while i < len(stmts) and (_is_future(stmts[i]) or (i == 0 and _is_docstring(stmts[0]))):
            i += 1
    return stmts, i, note


def _owns_docstring(tree, stmts):
    import ast
    if stmts is tree.body:
        return True
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body is stmts:
            return True
    return False


def _next_hint(tree, src, kinds, line):
    for n in sorted(c for c in kinds[0] if c > line)[:50]:
        try:
            place(tree, src, n, kinds)
            return "; the next line that can take a logpoint is %d" % n
        except Refused:
            continue
    return ""


def check(src, line, expr):
    """(ok, reason or placement note) for a logpoint at line with expr."""
    import ast
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        return False, "the file does not parse as Python %d.%d: %s (line %s)" % (sys.version_info[0], sys.version_info[1], e.msg, e.lineno)
    except ValueError as e:
        return False, "the file does not parse as Python: %s" % e
    try:
        _, _, note = place(tree, src, line)
    except Refused as e:
        return False, str(e)
    if expr:
        try:
            compile(expr, "<logpoint>", "eval", dont_inherit=True)
        except SyntaxError as e:
            return False, "--data is not a Python expression: %s (column %s)" % (e.msg, e.offset)
        except (ValueError, OverflowError) as e:
            return False, "--data is not a Python expression: %s" % e
    return True, note or ""


def check_main():
    """Answer debug-mode's check: a JSON request on stdin, a JSON answer on
    stdout."""
    import json
    req = json.loads(sys.stdin.read())
    try:
        with open(req["file"], "rb") as f:
            src = f.read()
    except OSError as e:
        out = {"ok": False, "reason": "cannot read the file: %s" % e.strerror}
    else:
        ok, text = check(src, int(req["line"]), req.get("data") or "")
        out = {"ok": ok, "reason": "" if ok else text, "placement": text if ok else ""}
    sys.stdout.write(json.dumps(out))


# --- instrumenting ----------------------------------------------------------

def _statement(index, like):
    """try: __import__(<this module>).hit(<index>) / except Exception: pass,
    at the position of the statement it goes before."""
    import ast
    node = ast.parse("try:\n    __import__(%r).hit(%d)\nexcept Exception:\n    pass\n" % (_SELF, index)).body[0]
    for n in ast.walk(node):
        if "lineno" in n._attributes:
            n.lineno, n.col_offset = like.lineno, like.col_offset
            n.end_lineno, n.end_col_offset = like.lineno, like.col_offset
    return node


def _instrument(src, filename, lps):
    """The code of a file with its logpoints in place, or None (then the file
    loads as usual: a syntax error is raised by the normal path, unchanged).
    Each logpoint is reported installed or failed."""
    import ast
    try:
        tree = ast.parse(src, filename)
    except (SyntaxError, ValueError) as e:
        for lp in lps:
            _report(lp, "failed", "%s does not parse: %s" % (os.path.basename(filename), e))
        return None
    todo = []
    kinds = _line_kinds(src)
    for lp in lps:
        if lp.expr and lp.code is None:
            try:
                lp.code = compile(lp.expr, "<logpoint %s>" % lp.id, "eval", dont_inherit=True)
                lp.nested = any(hasattr(c, "co_code") for c in lp.code.co_consts)
            except Exception as e:
                _report(lp, "failed", "the data expression does not compile: %s" % e)
                continue
        try:
            stmts, i, _ = place(tree, src, lp.line, kinds)
        except Refused as e:
            _report(lp, "failed", str(e))
            continue
        except Exception as e:
            _report(lp, "failed", "cannot place it: %r" % e)
            continue
        todo.append((id(stmts), i, lp, stmts))
    if not todo:
        return None
    # Insert from the end so earlier indexes stay right; at one spot, in id order.
    todo.sort(key=lambda t: (t[0], -t[1], -_s.table.index(t[2])))
    for _, i, lp, stmts in todo:
        like = stmts[i] if i < len(stmts) else stmts[-1]
        stmts.insert(i, _statement(_s.table.index(lp), like))
    try:
        code = compile(tree, filename, "exec", dont_inherit=True, optimize=-1)
    except Exception as e:
        for _, _, lp, _ in todo:
            _report(lp, "failed", "internal: the instrumented file does not compile: %r" % e)
        return None
    for _, _, lp, _ in todo:
        _report(lp, "installed", "")
    return code


def _make_loader():
    from importlib.machinery import SourceFileLoader

    class Loader(SourceFileLoader):
        """Compiles one file with its logpoints in place; never writes or
        reads its bytecode cache (the cache holds the file without them)."""

        def get_code(self, fullname):
            path = self.get_filename(fullname)
            lps = _s.by_file.get(os.path.realpath(path))
            code = None
            if lps:
                try:
                    code = _instrument(self.get_data(path), path, lps)
                except Exception:
                    code = None
            if code is None:
                return SourceFileLoader.get_code(self, fullname)
            return code

    return Loader


class _Finder(object):
    """First on sys.meta_path; looks only at names whose last part is the
    stem of a file with logpoints, and only swaps the loader of those files."""

    def __init__(self, loader):
        self.loader = loader

    def find_spec(self, name, path=None, target=None):
        if name == "runpy":
            return self.runpy_spec(name, path, target)
        if name.rpartition(".")[2] not in _s.stems:
            return None
        try:
            from importlib.machinery import SourceFileLoader
            for finder in sys.meta_path:
                if finder is self:
                    continue
                find = getattr(finder, "find_spec", None)
                spec = find(name, path, target) if find else None
                if spec is not None:
                    break
            else:
                return None
            lps = _s.by_file.get(os.path.realpath(spec.origin)) if spec.origin else None
            if lps:
                if type(spec.loader) is SourceFileLoader:
                    spec.loader = self.loader(spec.loader.name, spec.loader.path)
                else:
                    for lp in lps:
                        _report(lp, "failed", "%s was loaded by %s, not by Python's source loader" % (
                            os.path.basename(spec.origin), type(spec.loader).__name__))
            return spec
        except Exception:
            return None  # the normal path runs it again and raises as usual

    def runpy_spec(self, name, path, target):
        # runpy.run_path compiles a script itself, without the import
        # system (multiprocessing's spawn and forkserver children run the
        # main script that way): patch runpy once it has loaded.
        try:
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None) if finder is not self else None
                spec = find(name, path, target) if find else None
                if spec is not None and spec.loader is not None:
                    spec.loader = _ThenPatch(spec, spec.loader)
                    return spec
        except Exception:
            pass
        return None

    def invalidate_caches(self):
        pass


class _ThenPatch(object):
    """runpy's loader for one exec: then _patch_runpy, and the real loader
    put back where the module and its spec name it."""

    def __init__(self, spec, loader):
        self.spec, self.loader = spec, loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.spec.loader = self.loader
        try:
            module.__loader__ = self.loader
        except Exception:
            pass
        self.loader.exec_module(module)
        _patch_runpy(module)

    def __getattr__(self, name):
        return getattr(self.loader, name)


def _patch_runpy(runpy):
    real = getattr(runpy, "_get_code_from_file", None)
    if real is None or getattr(real, "_adm", False):
        return

    def _get_code_from_file(*args):
        # (run_name, fname) -> (code, fname) up to 3.12; (fname) -> code since.
        fname = args[-1]
        try:
            path = os.path.abspath(os.fsdecode(fname))
            lps = _s.by_file.get(os.path.realpath(path))
            if lps:
                with open(path, "rb") as f:
                    code = _instrument(f.read(), fname, lps)
                if code is not None:
                    return (code, fname) if len(args) == 2 else code
        except Exception:
            pass
        return real(*args)

    _get_code_from_file._adm = True
    runpy._get_code_from_file = _get_code_from_file


class _RunFile(str):
    """The audit hook is the get of a dict whose one key is this string: an
    event of another name costs one C-level lookup and no Python frame (the
    hook stays installed for the process's life). Only "cpython.run_file"
    hashes alike, so only it reaches __eq__, which runs the main script."""
    __slots__ = ()
    __hash__ = str.__hash__

    def __eq__(self, other):
        if not str.__eq__(self, other):
            return False
        if _s.main is not None:
            main, _s.main = _s.main, None
            _run_main(main)
        return True

    def __ne__(self, other):
        return not str.__eq__(self, other)


def _audit_hook():
    return {_RunFile("cpython.run_file"): None}.get


def _run_main(main):
    """Run the main script instrumented, as the interpreter would have, then
    end the run: SystemExit carries the exit status out of the audit hook,
    and the interpreter finalises as usual (threads joined, atexit run).
    main is (the path as the interpreter has it, its real path)."""
    path, real = main
    try:
        with open(path, "rb") as f:
            src = f.read()
        code = _instrument(src, path, _s.by_file[real])
    except Exception:
        code = None
    if code is None:
        return  # the interpreter runs the file itself
    import __main__
    from importlib.machinery import SourceFileLoader
    d = __main__.__dict__
    d["__file__"] = path
    d["__cached__"] = None
    d["__loader__"] = SourceFileLoader("__main__", path)
    try:
        exec(code, d)
    except SystemExit:
        raise
    except BaseException as e:
        tb = e.__traceback__
        if tb is not None and tb.tb_frame.f_code is _run_main.__code__:
            tb = tb.tb_next  # this frame is not the program's
        e = e.with_traceback(tb)
        _print_uncaught(e)
        if isinstance(e, KeyboardInterrupt):
            _s.sigint = True  # ended by SIGINT after atexit, as the interpreter does
            raise SystemExit(130)
        raise SystemExit(1)
    raise SystemExit(0)


def _print_uncaught(e):
    sys.last_type, sys.last_value, sys.last_traceback = type(e), e, e.__traceback__
    if sys.version_info >= (3, 12):
        sys.last_exc = e
    hook = getattr(sys, "excepthook", None)
    try:
        if hook is None:
            raise RuntimeError("lost sys.excepthook")
        hook(type(e), e, e.__traceback__)
    except BaseException as he:
        try:
            sys.stderr.write("Error in sys.excepthook:\n")
            sys.__excepthook__(type(he), he, he.__traceback__)
            sys.stderr.write("\nOriginal exception was:\n")
            sys.__excepthook__(type(e), e, e.__traceback__)
        except BaseException:
            pass


# --- hits and the writer -----------------------------------------------------

def _dumps_default(o):
    t = type(o)
    if t in (set, frozenset):
        try:
            return sorted(o)
        except Exception:
            return list(o)
    if getattr(t, "__module__", "") in ("decimal", "datetime", "uuid", "fractions", "pathlib", "ipaddress"):
        return str(o)
    if t in (bytes, bytearray):
        return repr(o)
    if getattr(t, "__module__", "") == "collections" and t.__name__ == "deque":
        return list(o)
    return "<unserializable %s>" % t.__name__


def hit(i):
    """The inserted statement's call: record logpoint i's event."""
    try:
        lp = _s.table[i]
        if lp.sent >= _s.cap or len(_queue) >= _MAX_QUEUED:
            lp.held += 1
            if lp.held == 1:
                _held_back(lp)
            return
        lp.sent += 1
        if lp.code is None:
            text = "null"
        else:
            f = _getframe(1)
            try:
                if lp.nested:
                    # A comprehension or lambda in the expression is a scope
                    # of its own: give it the frame's names as globals.
                    ns = dict(f.f_globals)
                    ns.update(f.f_locals)
                    v = eval(lp.code, ns)
                else:
                    v = eval(lp.code, f.f_globals, f.f_locals)
            except KeyboardInterrupt:
                raise
            except BaseException as e:
                v = {"agentDebugLogpointError": _describe(e)}
            finally:
                del f
            text = _serialize(v)
        _enqueue(lp.prefix + text + ',"timestamp":%d}\n' % int(_time() * 1000))
    except KeyboardInterrupt:
        raise
    except BaseException:
        pass


def _describe(e):
    try:
        msg = str(e)
    except Exception:
        msg = "<unprintable>"
    text = type(e).__name__ + (": " + msg if msg else "")
    return text[:300]


def _encoder(json):
    """A compact JSON encoder made once (json.dumps with options builds one
    per call): the C encoder itself where there is one. No cycle markers, so
    threads encoding the same object at once cannot see a false cycle; a
    real cycle ends in RecursionError, which _serialize reports."""
    try:
        from json.encoder import c_make_encoder, encode_basestring
        if c_make_encoder is not None:
            enc = c_make_encoder(None, _dumps_default, encode_basestring, None, ":", ",", False, False, False)
            enc({"probe": [1.5, None, True, "é"]}, 0)
            return lambda v: "".join(enc(v, 0))
    except Exception:
        pass
    return json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=_dumps_default).encode


def _serialize(v):
    try:
        text = _encode(v)
    except Exception as e:  # cycles, NaN, keys that are not strings, a failing __str__ …
        text = _json.dumps({"agentDebugUnserializable": _describe(e)[:200]})
    if len(text) > _MAX_DATA:
        text = _json.dumps({"agentDebugTruncated": True, "bytes": len(text), "preview": text[:1000]}, ensure_ascii=False)
    return text


def _held_back(lp):
    _enqueue('{"agentDebugHeldBack":{"hypothesisId":%s,"location":%s,"process":%s,"count":%d,"cap":%d}}\n'
             % (_json.dumps(lp.hyp), _json.dumps(lp.location), _json.dumps(_s.process), lp.held, _s.cap))


def _report(lp, state, reason):
    if lp.reported:
        return
    lp.reported = True
    rec = {"id": lp.id, "state": state, "process": _s.process}
    if reason:
        rec["reason"] = reason[:390]
    _enqueue(_json.dumps({"agentDebugLogpoint": rec}, ensure_ascii=False) + "\n")


class _Writer(object):
    """Appends the queue in batches from a thread of its own, started by
    the first event and ended after a quiet spell. No lock of the program's
    is on the hit's path: queuing is a deque append, only the first event
    into an empty queue wakes the thread, and only the first event while no
    thread runs (at start, after a fork, after a quiet spell) is written by
    the caller."""

    def __init__(self):
        import _thread
        self.start_thread = _thread.start_new_thread
        self.allocate = _thread.allocate_lock
        self.native_id = getattr(_thread, "get_native_id", None)
        self.registered = False
        self.reset()

    def reset(self):
        self.running = False
        self.stop = False
        self.tid = None
        self.io = self.allocate()  # held while writing
        self.wake = self.allocate()  # released to wake the thread early
        self.wake.acquire()
        self.done = None

    def ensure(self):
        if self.running or self.stop:
            return
        if not self.registered:
            # Here, not at start-up: importing threading costs a millisecond
            # in every process, most of which never record an event.
            self.registered = True
            try:
                import threading
                reg = getattr(threading, "_register_atexit", None)
                if reg is not None:
                    reg(_threading_exit)
            except Exception:
                pass
        self.running = True
        self.done = self.allocate()
        self.done.acquire()
        try:
            self.start_thread(self.loop, ())
        except Exception:
            self.running = False  # at shutdown: the exit flush writes it

    def poke(self):
        """Wake the thread for the first event after a quiet spell, so it is
        written at once (a worker its parent ends with SIGTERM keeps it): at
        most one wake per batch, on a lock only the writer waits on."""
        try:
            self.wake.release()
        except RuntimeError:
            pass  # already woken

    def loop(self):
        done = self.done
        try:
            if self.native_id:
                self.tid = self.native_id()
            quiet = 0.0
            while not self.stop:
                self.wake.acquire(True, _FLUSH_EVERY)
                if _queue:
                    quiet = 0.0
                    self.drain()
                    continue
                quiet += _FLUSH_EVERY
                if quiet >= _IDLE_EXIT:
                    self.running = False
                    if not _queue:  # an event queued before the flag fell is written first
                        break
                    self.running = True
        finally:
            done.release()

    def drain(self):
        if not _queue or not self.io.acquire(True, 2.0):
            return
        try:
            while _queue:
                parts, n = [], 0
                while _queue and n < _MAX_BATCH:
                    s = _queue.popleft()
                    parts.append(s)
                    n += len(s)
                _append("".join(parts).encode("utf-8", "replace"))
        except Exception:
            pass
        finally:
            self.io.release()

    def halt(self, wait_os_thread):
        """End the thread and write what is queued; with wait_os_thread, also
        wait (briefly) until the system no longer counts the thread."""
        if self.running and self.done is not None:
            self.stop = True
            try:
                self.wake.release()
            except Exception:
                pass
            self.done.acquire(True, 1.0)
            tid = self.tid
            if wait_os_thread and tid is not None and sys.platform.startswith("linux"):
                task = "/proc/self/task/%d" % tid
                for _ in range(400):
                    if not os.path.exists(task):
                        break
                    _sleep(0.00025)
            self.running = False
            self.stop = False
            self.wake = self.allocate()
            self.wake.acquire()
        self.drain()


def _append(data):
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = _open(_s.append, flags, 0o600)
    try:
        while data:
            n = _write(fd, data)
            data = data[n:]
    finally:
        _close(fd)


def _enqueue(line):
    idle = not _queue
    _queue.append(line)
    w = _writer
    if _s.direct > 0:
        # A process's first events are written here and now: a short-lived
        # process, or a pool worker its parent ends with SIGTERM, keeps them,
        # and needs no thread. Past them, a hot path queues and the thread
        # writes in batches.
        _s.direct -= 1
        w.drain()
    elif not w.running:
        w.drain()  # the first after a quiet spell, likewise
        w.ensure()
    elif idle:
        w.poke()


def _before_fork():
    # Python 3.12 warns about fork() in a process with threads: the writer
    # thread must be gone, not just idle, and the child must not write the
    # parent's queue again.
    try:
        _writer.halt(True)
    except Exception:
        pass


def _after_fork_child():
    try:
        _queue.clear()
        _writer.reset()
        _s.process = "%d-%d" % (_getpid(), int(_time() * 1000))
        _s.direct = _DIRECT
        for lp in _s.table:
            lp.sent = lp.held = 0
    except Exception:
        pass


def _at_exit():
    try:
        for lp in _s.table:
            if lp.held > 1:
                _held_back(lp)
        _writer.halt(False)
    except Exception:
        pass
    if _s.sigint:
        try:
            import signal
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:
                    pass
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        except Exception:
            pass


def _wrap_exit(real):
    # os._exit() skips atexit: a forked child that ends with it (a pre-fork
    # server's worker, a test's child) would lose the events it queued.
    def _exit(*args, **kwargs):
        try:
            _writer.halt(False)
        except Exception:
            pass
        return real(*args, **kwargs)
    _exit.__name__, _exit.__qualname__, _exit.__doc__ = real.__name__, real.__name__, real.__doc__
    return _exit


def _threading_exit():
    # multiprocessing's children end with os._exit() after threading's own
    # shutdown: this is the last moment their events can be written.
    try:
        _writer.halt(False)
    except Exception:
        pass


# --- start-up ----------------------------------------------------------------

def _load():
    path = os.environ.get(_ENV_FILE)
    append = os.environ.get(_ENV_APPEND)
    if not path or not append:
        return []
    try:
        if os.path.getsize(path) > 8 << 20:
            return []
        with open(path, "rb") as f:
            raw = f.read()
    except OSError:
        return []
    if b'"python"' not in raw:
        return []
    import json
    doc = json.loads(raw.decode("utf-8"))
    if doc.get("version") != 1:
        return []
    _s.append = append
    return [lp for lp in doc.get("logpoints") or () if lp.get("language") == "python"]


def start():
    """Called by sitecustomize at start-up; never raises."""
    global _json, _queue, _writer, _time, _sleep, _encode
    try:
        specs = _load()
        if not specs:
            return
        import collections
        import json
        import time
        _json, _time, _sleep = json, time.time, time.sleep
        _encode = _encoder(json)
        _queue = collections.deque()
        _writer = _Writer()
        try:
            _s.cap = max(1, int(os.environ.get(_ENV_CAP) or _DEFAULT_CAP))
        except ValueError:
            _s.cap = _DEFAULT_CAP
        _s.process = "%d-%d" % (_getpid(), int(_time() * 1000))
        for spec in specs:
            lp = _LP()
            lp.id, lp.line, lp.location = str(spec["id"]), int(spec["line"]), str(spec["location"])
            lp.hyp, lp.msg, lp.expr = str(spec["hypothesisId"]), str(spec["message"]), spec.get("data") or ""
            lp.file = os.path.realpath(str(spec.get("realFile") or spec["file"]))
            lp.code, lp.nested, lp.sent, lp.held, lp.reported = None, False, 0, 0, False
            lp.prefix = '{"hypothesisId":%s,"location":%s,"message":%s,"data":' % (
                json.dumps(lp.hyp, ensure_ascii=False), json.dumps(lp.location, ensure_ascii=False), json.dumps(lp.msg, ensure_ascii=False))
            _s.table.append(lp)
            _s.by_file.setdefault(lp.file, []).append(lp)
            base = os.path.basename(lp.file)
            stem = base[:-3] if base.endswith(".py") else base
            _s.stems.add(os.path.basename(os.path.dirname(lp.file)) if stem == "__init__" else stem)
        sys.meta_path.insert(0, _Finder(_make_loader()))
        if "runpy" in sys.modules:
            _patch_runpy(sys.modules["runpy"])
        import atexit
        atexit.register(_at_exit)  # first registered, so it runs last
        os._exit = _wrap_exit(os._exit)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(before=_before_fork, after_in_child=_after_fork_child)
        argv0 = (getattr(sys, "argv", None) or [""])[0]
        if argv0 and argv0 not in ("-c", "-m", "-") and not sys.flags.inspect:
            real = os.path.realpath(argv0)
            if real in _s.by_file:
                # The name the interpreter gives the script (its __file__, its
                # tracebacks): since 3.9 argv[0] joined to the folder, unnormalised.
                path = argv0
                if sys.version_info >= (3, 9) and not os.path.isabs(argv0):
                    path = os.path.join(os.getcwd(), argv0)
                _s.main = (path, real)
                sys.addaudithook(_audit_hook())
    except Exception:
        pass


_json = _queue = _writer = _time = _sleep = _encode = None
_getframe = sys._getframe
