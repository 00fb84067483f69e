"""A sweep's runs as LAVA job definitions (what KernelCI and LKFT labs run).

Two device types:
- "qemu": the simulated platform, as guest/host/qemu-run.sh boots it (the same kernel
  command line, vCPUs, memory and TCG CPU model), the kernel and a per-run ramdisk
  deployed to tmpfs;
- "x86": a real Intel hybrid laptop, deployed over TFTP and booted by iPXE, with the
  patched kernel and intel_pstate in passive mode (schedutil; SMT off, without which
  intel_pstate gives no asymmetric capacities). The group's hybrid_sim platform does
  not apply there: the laptop is the platform.

The guest's init runs the job of the run and reports "guest-init: job exited with
status N" on the console; a LAVA monitor action turns that line into the test case
"job" (pass for status 0). Artifacts are fetched from ARTIFACTS (a URL the lab can
read): kernels/ID/bzImage and ramdisk/KEY.cpio.gz, the initramfs with the run
folder (write_artifacts() lays them out to serve). With no 9p share the guest sends
the run folder back over the console, which the lab keeps as the job log; results()
restores it from that log and finish() judges it as guest/host/run.sh judges its own.
"""
import base64
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile

from contract.constants import CONSOLE_JOB_START, GUEST_CMDLINE, TCG_CPU, kernel_id

from . import sweep

MEM_MB = 2048
RESULT_LINE = r"guest-init: (?P<test_case_id>job) exited with status (?P<result>\d+)"
DEVICE_TYPES = ("qemu", "x86")


def _fixup():
    return {"0": "pass", **{str(i): "fail" for i in range(1, 256)}}


def _metadata(spec):
    return {"eas.experiment": spec["experiment"], "eas.profile": spec["profile_name"],
            "eas.group": spec["group"], "eas.rep": str(spec["rep"]),
            "eas.kernel": spec["kernel"], "eas.cmdline": spec["cmdline"] or "-",
            "eas.key": spec.get("key") or "-"}


def _monitor(timeout_min):
    return {"test": {"timeout": {"minutes": timeout_min},
                     "monitors": [{"name": "eas-run", "start": CONSOLE_JOB_START,
                                   "end": "reboot: Power down", "pattern": RESULT_LINE,
                                   "fixupdict": _fixup()}]}}


def job(spec, artifacts, device_type="qemu", timeout_min=20):
    """One run as a LAVA job definition (a dict; YAML-dump it)."""
    artifacts = artifacts.rstrip("/")
    kid = kernel_id(spec["kernel"], spec["kconfig"])
    ramdisk = f"{artifacts}/ramdisk/{spec.get('key') or 'RUN'}.cpio.gz"
    name = f"eas {spec['experiment']} {spec['profile_name']} {spec['group']} #{spec['rep']}"
    common = {"job_name": name[:200], "priority": "medium", "visibility": "public",
              "timeouts": {"job": {"minutes": timeout_min + 15}, "action": {"minutes": timeout_min},
                           "connection": {"minutes": 2}},
              "metadata": _metadata(spec)}
    if device_type == "qemu":
        cmdline = f"{GUEST_CMDLINE} hybrid_sim={spec['platform']} {spec['cmdline']}".strip()
        return {"device_type": "qemu", **common,
                "context": {"arch": "amd64", "cpu": TCG_CPU, "memory": MEM_MB, "no_kvm": True,
                            "extra_options": ["-smp", str(spec["vcpus"]), "-no-reboot",
                                              "-accel", "tcg,thread=multi"]},
                "actions": [
                    {"deploy": {"to": "tmpfs", "timeout": {"minutes": 5},
                                "images": {"kernel": {"image_arg": f"-kernel {{kernel}} -append '{cmdline}'",
                                                      "url": f"{artifacts}/kernels/{kid}/bzImage"},
                                           "ramdisk": {"image_arg": "-initrd {ramdisk}", "url": ramdisk}}}},
                    {"boot": {"method": "qemu", "media": "tmpfs", "timeout": {"minutes": 5},
                              "prompts": [CONSOLE_JOB_START]}},
                    _monitor(timeout_min)]}
    if device_type == "x86":
        if spec["kernel"] != "patched":
            raise ValueError(f"{name}: the x86 device runs the patched kernel only (intel_pstate's "
                             "energy model is in the patched part)")
        cmdline = f"intel_pstate=passive nosmt sched_verbose panic=-1 {spec['cmdline']}".strip()
        return {"device_type": "x86", **common,
                "context": {"extra_kernel_args": cmdline},
                "actions": [
                    {"deploy": {"to": "tftp", "timeout": {"minutes": 5},
                                "kernel": {"url": f"{artifacts}/kernels/{kid}/bzImage"},
                                "ramdisk": {"url": ramdisk}}},
                    {"boot": {"method": "ipxe", "commands": "ramdisk", "timeout": {"minutes": 5},
                              "prompts": [CONSOLE_JOB_START]}},
                    _monitor(timeout_min)]}
    raise ValueError(f"unknown device type '{device_type}' (expected one of {', '.join(DEVICE_TYPES)})")


def validate(data):
    """LAVA's own schema check (Debian's lava-common); raises voluptuous.Invalid with
    the path of the bad key."""
    from lava_common import schemas  # pylint: disable=import-outside-toplevel
    schemas.validate(data, strict=True)


def export(specs, out_dir, artifacts, device_type="qemu"):
    """Write OUT/KEY.yaml (validated) for each spec; returns the paths."""
    import yaml  # pylint: disable=import-outside-toplevel
    paths = []
    for s in specs:
        data = job(s, artifacts, device_type)
        validate(data)
        name = f"{s['experiment']}-{s['profile_name']}-{s['group']}-{s['rep']}-{device_type}.yaml"
        path = os.path.join(out_dir, name)
        sweep.write_atomic(path, yaml.safe_dump(data, sort_keys=False, width=1000))
        paths.append(path)
    return paths


# The run folder a guest without the 9p share sends back over the console (guest/vm/init).
RESULTS_BEGIN = re.compile(r"guest-init: results begin (\d+) bytes tar\.gz base64")
RESULTS_END = re.compile(r"guest-init: results end md5 ([0-9a-f]{32})")
BASE64_LINE = re.compile(r"^[A-Za-z0-9+/=]+$")


def console_lines(path):
    """The target's console lines of a LAVA job log: the raw log (`lavacli jobs logs
    --raw`, one YAML record per line, console lines at level "target") or plain
    console text (the other formats, or QEMU's own console.log)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    if not next((l for l in lines if l.strip()), "").startswith("- {"):
        return [l.rstrip("\r") for l in lines]
    import yaml  # pylint: disable=import-outside-toplevel
    out = []
    for l in (l for l in lines if l.startswith("- {")):
        try:
            rec = json.loads(l[2:])
        except ValueError:
            rec = yaml.safe_load(l[2:])
        if isinstance(rec, dict) and rec.get("lvl") == "target" and isinstance(rec.get("msg"), str):
            out.extend(m.rstrip("\r") for m in rec["msg"].splitlines() or [""])
    return out


def _results_block(lines, where):
    """(first, last, payload bytes) of the results block of console lines; ValueError
    with a one-line reason when it is missing, cut short or corrupt."""
    begin = next((i for i, l in enumerate(lines) if RESULTS_BEGIN.search(l)), None)
    if begin is None:
        raise ValueError(f"{where}: no run folder in this log (the guest sends one only when "
                         "it booted from a per-run ramdisk, after its job)")
    size = int(RESULTS_BEGIN.search(lines[begin]).group(1))
    end = next((i for i in range(begin + 1, len(lines)) if RESULTS_END.search(lines[i])), None)
    if end is None:
        raise ValueError(f"{where}: the run folder is cut short (no 'results end' line after "
                         f"line {begin + 1})")
    text = "".join(l.strip() for l in lines[begin + 1:end] if BASE64_LINE.match(l.strip()))
    try:
        data = base64.b64decode(text, validate=True)
    except ValueError as e:
        raise ValueError(f"{where}: the run folder's base64 is corrupt ({e})") from None
    md5 = RESULTS_END.search(lines[end]).group(1)
    if len(data) != size or hashlib.md5(data).hexdigest() != md5:
        raise ValueError(f"{where}: the run folder is corrupt ({len(data)} of {size} bytes, "
                         "md5 differs): lines lost or mixed into the console")
    return begin, end, data


def results(log_path, out_dir):
    """Restore the run folder a guest sent over the console into out_dir, which must
    not exist, with the rest of the console as console.log. Overwrites nothing: the
    folder appears whole or not at all. Raises ValueError with a one-line reason."""
    if os.path.exists(out_dir):
        raise ValueError(f"{out_dir} exists; give a new folder")
    lines = console_lines(log_path)
    begin, end, data = _results_block(lines, log_path)
    parent = os.path.dirname(os.path.abspath(out_dir))
    os.makedirs(parent, exist_ok=True)
    stage = tempfile.mkdtemp(dir=parent, prefix=".lava-results-")
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for m in tar.getmembers():
                name = os.path.normpath(m.name)
                if name.startswith(("/", "..")) or not (m.isfile() or m.isdir()):
                    raise ValueError(f"{log_path}: refusing the run folder's entry '{m.name}'")
            # Every member checked above: files and folders inside.
            tar.extractall(stage, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        with open(os.path.join(stage, "console.log"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines[:begin] + lines[end + 1:]) + "\n")
        os.rename(stage, out_dir)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return out_dir


RAMDISK_SH = os.path.join(sweep.TOP, "guest", "host", "lava-ramdisk.sh")
FINISH_SH = os.path.join(sweep.TOP, "guest", "host", "finish-run.sh")


def write_artifacts(specs, art_dir, build=None):
    """What the jobs of specs fetch from ARTIFACTS, laid out to serve as is:
    kernels/ID/bzImage and, per run, ramdisk/KEY.cpio.gz (the initramfs with the run
    folder that run.sh --prepare-only makes). Returns the ramdisks written; a spec
    without a key (its kernel not built) is an error."""
    build = build or sweep.BUILD
    runs = os.path.join(art_dir, ".runs")
    paths = []
    for s in specs:
        if not s.get("key"):
            raise ValueError(f"{s['profile_name']} {s['group']}: kernel "
                             f"{kernel_id(s['kernel'], s['kconfig'])} not built (make kernels)")
        kid = kernel_id(s["kernel"], s["kconfig"])
        image = os.path.join(art_dir, "kernels", kid, "bzImage")
        if not os.path.exists(image):
            os.makedirs(os.path.dirname(image), exist_ok=True)
            shutil.copyfile(os.path.join(build, "kernels", kid, "bzImage"), image + ".new")
            os.rename(image + ".new", image)
        ramdisk = os.path.join(art_dir, "ramdisk", f"{s['key']}.cpio.gz")
        os.makedirs(os.path.dirname(ramdisk), exist_ok=True)
        rc, run_dir = sweep.prepare(s, runs, build)
        if rc != 0 or not run_dir:
            raise ValueError(f"{s['profile_name']} {s['group']}: run.sh --prepare-only failed ({rc})")
        r = subprocess.run([RAMDISK_SH, run_dir, ramdisk], capture_output=True, text=True,
                           check=False, timeout=300)
        shutil.rmtree(run_dir, ignore_errors=True)
        if r.returncode != 0:
            raise ValueError((r.stderr.strip().splitlines() or ["lava-ramdisk.sh failed"])[-1])
        paths.append(ramdisk)
    shutil.rmtree(runs, ignore_errors=True)
    return paths


def finish(run_dir):
    """Judge a run folder that came back from a lab as run.sh judges its own (status,
    splats, run.json: guest/host/finish-run.sh); (exit status, its one-line error)."""
    with open(os.path.join(run_dir, "kernel.json"), encoding="utf-8") as f:
        k = json.load(f)
    r = subprocess.run([FINISH_SH, run_dir, os.path.join(run_dir, "profile.json"), k["kernel"],
                        k["kconfig"], "0"], capture_output=True, text=True, check=False, timeout=120)
    return r.returncode, (r.stderr.strip().splitlines() or [""])[-1]
