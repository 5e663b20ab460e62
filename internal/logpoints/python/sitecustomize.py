# debug-mode's start-up hook for logpoints. It is here because debug-mode
# put this folder first on PYTHONPATH for a program under debug (reproduce,
# or eval "$(debug-mode env --session <id>)"); it is never in a project or
# in site-packages. It puts the session's logpoints in place (Python 3.8 and
# later), takes this folder off sys.path again, then runs the sitecustomize
# this one hides, if there is one, so the program sees what it would have
# seen without it. Written in a syntax every Python reads.
import sys


def _adm_setup():
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.version_info >= (3, 8):
        try:
            import _agent_debug_mode_logpoints
            _agent_debug_mode_logpoints.start()
        except Exception:
            pass
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    return [p for p in sys.path]


def _adm_chain(path):
    # The sitecustomize further along the path, loaded under the same name
    # (the import of this one then yields it); an error in it is raised to
    # site, which reports it as it always does. With none, this module stays
    # in sys.modules: the import system requires an entry there.
    if sys.version_info >= (3, 5):
        from importlib.machinery import PathFinder
        import importlib.util
        spec = PathFinder.find_spec("sitecustomize", path)
        if spec is None:
            return
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)
    else:
        import imp
        try:
            found = imp.find_module("sitecustomize", path)
        except ImportError:
            return
        try:
            imp.load_module("sitecustomize", *found)
        finally:
            if found[0]:
                found[0].close()


_adm_chain(_adm_setup())
