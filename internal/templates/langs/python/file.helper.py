# region agent log
import json as _adm_json, os as _adm_os, time as _adm_time

_ADM_PATH = "__APPEND_PATH__"
_ADM_MAX_DATA = 16000  # bytes of serialized data kept per event


def agent_log(hypothesis_id, location, message, data=None):
    """Append one debug-mode event to the append path. Never raises."""
    try:
        if callable(data):
            try:
                data = data()  # built here, inside the guard
            except Exception as e:
                data = {"agentDebugDataError": repr(e)[:200]}
        try:
            text = _adm_json.dumps(data, ensure_ascii=False, allow_nan=False,
                                   default=lambda o: "<unserializable %s>" % type(o).__name__)
        except Exception as e:  # cycles, NaN, a failing __str__ ...
            text = _adm_json.dumps({"agentDebugUnserializable": str(e)[:200]})
        if len(text) > _ADM_MAX_DATA:
            text = _adm_json.dumps({"agentDebugTruncated": True, "bytes": len(text), "preview": text[:1000]})
        line = '{"hypothesisId":%s,"location":%s,"message":%s,"data":%s,"timestamp":%d}\n' % (
            _adm_json.dumps(str(hypothesis_id)), _adm_json.dumps(str(location)),
            _adm_json.dumps(str(message)), text, int(_adm_time.time() * 1000))
        fd = _adm_os.open(_ADM_PATH, _adm_os.O_WRONLY | _adm_os.O_APPEND | _adm_os.O_CREAT, 0o600)
        try:
            _adm_os.write(fd, line.encode("utf-8", "replace"))  # one write: lines never interleave
        finally:
            _adm_os.close(fd)
    except Exception:
        pass
# endregion
