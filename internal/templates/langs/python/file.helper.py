# debug-mode probe helper, written by debug-mode (the same for every session). Each instrumented
# module loads it once per process with its import line. Standard library only; never raises.
import atexit, collections, json, os, signal, sys, threading, time
MAX_DATA = 16000  # bytes of serialized data kept per event
_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False, default=lambda o: "<unserializable %s>" % type(o).__name__).encode
_queue = collections.deque()  # serialized lines; append and popleft need no lock
_io = threading.Lock()  # the writer's own: the writer thread and the exit flush take it, never a call
_sites, _sent, _held = {}, {}, {}  # call site -> location; location -> events sent; location -> [hypothesis, held back, last reported]
_conf = {"path": None, "cap": 10000, "writer": False, "process": ""}

def _new_process():  # at load, and in the child of a fork: nothing inherited is sent twice
    _queue.clear(), _sent.clear(), _held.clear()
    _conf.update(writer=False, process="%d-%d" % (os.getpid(), time.time() * 1000))

def bind(path, cap=10000):
    """The first binding in a process says where events go; the environment wins over it."""
    if _conf["path"] is None:
        env = os.environ.get("AGENT_DEBUG_MODE_MAX_PER_LOCATION", "")
        _conf.update(path=os.environ.get("AGENT_DEBUG_MODE_APPEND_PATH") or path, cap=int(env) if env.isdigit() else cap)
    return agent_log

def _drain():  # the queue, then each capped location's held-back count when it grew (a running total: the service keeps the largest)
    with _io:
        lines = [_queue.popleft() for _ in range(len(_queue))]
        for loc, h in list(_held.items()):
            if h[1] != h[2]:
                h[2] = h[1]
                lines.append('{"agentDebugHeldBack":{"hypothesisId":%s,"location":%s,"count":%d,"cap":%d,"process":"%s"}}\n' % (
                    json.dumps(h[0]), json.dumps(loc), h[2], _conf["cap"], _conf["process"]))
        try:
            if lines:  # one write per batch, on an O_APPEND descriptor
                with open(_conf["path"], "ab", buffering=0, opener=lambda p, fl: os.open(p, fl, 0o600)) as f:
                    f.write("".join(lines).encode("utf-8", "replace"))
        except Exception:
            pass  # unwritable: this batch is lost, never the program

def _writer():  # every 50 ms, so a killed process has delivered all but the last moment, held-back counts included
    while not time.sleep(0.05):
        _drain()

def agent_log(hypothesis_id, message, data=None, location=None):
    """Queue one event; a callable data is called here, inside the guard. Never raises."""
    try:
        if location is None:
            f = sys._getframe(1)
            location = _sites.get((f.f_code, f.f_lineno))
            if location is None:
                name = f.f_code.co_filename  # an absolute path: the service makes it relative to the project root
                location = _sites[(f.f_code, f.f_lineno)] = "%s:%d" % (name if name.startswith("<") else os.path.abspath(name), f.f_lineno)
        sent = _sent.get(location, 0)
        if sent >= _conf["cap"]:  # capped: count it, send nothing
            _held.setdefault(location, [str(hypothesis_id), 0, 0])[1] += 1
            return
        _sent[location] = sent + 1
        if callable(data):
            try:
                data = data()
            except Exception as e:
                data = {"agentDebugDataError": repr(e)[:200]}
        try:
            text = _encode(data)
        except Exception as e:  # cycles, NaN, a failing __str__ ...
            text = json.dumps({"agentDebugUnserializable": str(e)[:200]})
        if len(text) > MAX_DATA:
            text = json.dumps({"agentDebugTruncated": True, "bytes": len(text), "preview": text[:1000]})
        _queue.append('{"hypothesisId":%s,"location":%s,"message":%s,"data":%s,"timestamp":%d}\n' % (json.dumps(str(hypothesis_id)),
                      json.dumps(str(location)), json.dumps(str(message)), text, time.time() * 1000))
        if not _conf["writer"]:  # the background writer, started by the first event of a process
            _conf["writer"] = threading.Thread(target=_writer, name="agent-debug-mode", daemon=True).start() or True
    except Exception:
        pass

def _on_signal(signum, frame):  # flush, then end by the signal as the program would have
    _drain(), signal.signal(signum, signal.SIG_DFL), os.kill(os.getpid(), signum)

_new_process(), atexit.register(_drain), hasattr(os, "register_at_fork") and os.register_at_fork(after_in_child=_new_process)
try:  # only where the program has no handler of its own
    signal.getsignal(signal.SIGTERM) == signal.SIG_DFL and signal.signal(signal.SIGTERM, _on_signal)
except Exception:
    pass  # not loaded in the main thread: no flush on SIGTERM
