"""A sweep's runs as LAVA job definitions (what KernelCI and LKFT labs run).

Two device types:
- "qemu": the simulated platform, as guest/qemu-run.sh boots it (the same kernel
  command line, vCPUs, memory and TCG CPU model), the kernel and a per-run ramdisk
  deployed to tmpfs;
- "x86": a real Intel hybrid laptop, deployed over TFTP and booted by iPXE, with the
  patched kernel and intel_pstate in passive mode (schedutil; SMT off, without which
  intel_pstate gives no asymmetric capacities). The group's hybrid_sim platform does
  not apply there: the laptop is the platform.

The guest's init runs the job of the run and reports "guest-init: job exited with
status N" on the console; a LAVA monitor action turns that line into the test case
"job" (pass for status 0). Artifacts are fetched from ARTIFACTS (a URL the lab can
read): kernels/ID/bzImage and ramdisk/KEY.cpio.gz. See the README's LAVA section for
what a lab needs and how results come back.
"""
import os

from . import sweep

TCG_CPU = "max,vendor=GenuineIntel,family=6,model=15"   # guest/qemu-run.sh's TCG_CPU
GUEST_CMDLINE = "console=ttyS0 panic=-1 oops=panic loglevel=6 sched_verbose"
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
                     "monitors": [{"name": "eas-run", "start": "guest-init: running job",
                                   "end": "reboot: Power down", "pattern": RESULT_LINE,
                                   "fixupdict": _fixup()}]}}


def job(spec, artifacts, device_type="qemu", timeout_min=20):
    """One run as a LAVA job definition (a dict; YAML-dump it)."""
    artifacts = artifacts.rstrip("/")
    kid = sweep.kernel_id(spec["kernel"], spec["kconfig"])
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
                              "prompts": ["guest-init: running job"]}},
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
                              "prompts": ["guest-init: running job"]}},
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
