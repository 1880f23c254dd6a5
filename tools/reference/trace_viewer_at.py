#!/usr/bin/env python3
"""Writes XProf's trace_viewer@ answer (the streaming trace viewer's Chrome
JSON) for one or several .xplane.pb files, gzipped, as a golden file.

Dev tooling only (needs a Python with xprof 2.24.2, see README.md; re-runs
itself under $XPROF_PYTHON, default /tmp/venv-ref/bin/python). The files
are handed to the converter as symbolic links in a temporary folder, so
the LevelDB tables XProf writes beside them never land next to a profile.
Options are passed as strings, as the TensorBoard plugin passes request
parameters (an int "resolution" is ignored by the converter).

Usage: trace_viewer_at.py OUT.json.gz '{"resolution": "0"}' XPLANE [XPLANE ...]
Example (the golden of tests/api/test_trace_api.c):
  tools/reference/trace_viewer_at.py \\
    tests/data/reference/shared_golden/logdirs/tf_keras_gpu_gcp/train/plugins/profile/2022_11_04_21_26_12/instance-ecbm.trace_viewer_at.json.gz \\
    '{"resolution": "0"}' \\
    ../shared/testdata/logdirs/tf_keras_gpu_gcp/train/plugins/profile/2022_11_04_21_26_12/instance-ecbm.xplane.pb
"""
import gzip
import io
import json
import os
import sys
import tempfile

SUFFIX = ".xplane.pb"


def ensure_xprof():
    try:
        import xprof  # noqa: F401  pylint: disable=import-outside-toplevel
        return
    except ImportError:
        pass
    py = os.environ.get("XPROF_PYTHON", "/tmp/venv-ref/bin/python")
    if os.environ.get("TVA_REEXEC") == "1" or not os.path.exists(py):
        sys.exit(f"trace_viewer_at: xprof is not installed for {sys.executable}")
    os.environ["TVA_REEXEC"] = "1"
    os.execv(py, [py, os.path.abspath(__file__)] + sys.argv[1:])


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    ensure_xprof()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from xprof.convert import raw_to_tool_data  # pylint: disable=import-outside-toplevel
    out, options, files = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3:]
    with tempfile.TemporaryDirectory(prefix="tva-") as tmp:
        links = []
        for f in files:
            link = os.path.join(tmp, os.path.basename(f))
            os.symlink(os.path.abspath(f), link)
            links.append(link)
        hosts = [os.path.basename(p)[:-len(SUFFIX)] for p in links]
        data, _ = raw_to_tool_data.xspace_to_tool_data(
            links, "trace_viewer@",
            {"use_saved_result": False, "trace_viewer_options": options,
             "hosts": hosts})
    if not data:
        sys.exit("trace_viewer_at: the converter gave no data")
    if isinstance(data, str):
        data = data.encode("utf-8")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", compresslevel=9, mtime=0,
                       fileobj=buf) as gz:
        gz.write(data)
    with open(out, "wb") as f:
        f.write(buf.getvalue())
    print(f"{out}: {len(data)} bytes of JSON, {len(buf.getvalue())} gzipped")


if __name__ == "__main__":
    main()
