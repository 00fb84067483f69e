"""What host, guest and analysis share has one owner (analysis/contract): the shell
side agrees with its constants, and the README's run-folder table is the contract's."""
import re
import subprocess

import pytest

from contract import constants, run_folder
from contract.paths import TOP


def shell(expr):
    """expr evaluated in bash after sourcing guest/host/host-lib.sh."""
    r = subprocess.run(["bash", "-c", f'. guest/host/host-lib.sh && {expr}'], cwd=TOP,
                       capture_output=True, text=True, check=True)
    return r.stdout.strip()


def test_host_lib_has_the_kernel_names_and_ids():
    assert tuple(shell('echo "$ALL_KERNELS"').split()) == constants.ALL_KERNELS
    assert tuple(shell('echo "$KERNELS"').split()) == constants.KERNELS
    for kernel in constants.ALL_KERNELS:
        for kconfig in constants.KCONFIGS:
            assert shell(f"kernel_id {kernel} {kconfig}") == constants.kernel_id(kernel, kconfig)
    assert shell("(check_kconfig_name nope) 2>&1 || true").endswith("(expected default or debug)")


def test_host_lib_has_the_platform_default_and_grammar():
    assert shell('echo "$DEFAULT_PLATFORM"') == constants.DEFAULT_PLATFORM
    assert shell("echo \"$PLATFORM_PATTERN\"") == constants.PLATFORM_PATTERN
    assert constants.PLATFORM_RE.match(constants.DEFAULT_PLATFORM)


@pytest.mark.parametrize("spec", ["e:4:600,p:2:1024", "e:1:600:70,p:1:1024", "x:2", "e:4:600,",
                                  "E:1:600", "e:1:600,p:1:1024:5:6"])
def test_shell_and_python_accept_the_same_platforms(spec):
    in_shell = shell(f"[[ '{spec}' =~ $PLATFORM_PATTERN ]] && echo y || echo n") == "y"
    assert in_shell == bool(constants.PLATFORM_RE.match(spec))


def test_qemu_run_uses_the_tcg_cpu_model():
    with open(f"{TOP}/guest/host/qemu-run.sh", encoding="utf-8") as f:
        m = re.search(r"^TCG_CPU=\$\{TCG_CPU:-([^}]+)\}$", f.read(), re.M)
    assert m and m.group(1) == constants.TCG_CPU


def test_the_runner_gives_the_guest_its_command_line():
    with open(f"{TOP}/guest/host/qemu-run.sh", encoding="utf-8") as f:
        assert f'-append "{constants.BOOT_CMDLINE} ${{CMDLINE:-}}"' in f.read()
    with open(f"{TOP}/guest/host/run.sh", encoding="utf-8") as f:
        assert f'export CMDLINE="{constants.RUN_CMDLINE} ${{CMDLINE:-}}"' in f.read()


def test_the_guest_kernel_ticks_at_hz():
    with open(f"{TOP}/guest/kernel/config/guest.config", encoding="utf-8") as f:
        config = f.read()
    assert f"CONFIG_HZ_{constants.HZ}=y" in config.splitlines()
    assert constants.TICK_NS * constants.HZ == 1_000_000_000


def test_guest_init_prints_the_console_markers():
    with open(f"{TOP}/guest/vm/init", encoding="utf-8") as f:
        init = f.read()
    assert f'echo "{constants.CONSOLE_PREFIX}$*"' in init
    prefix_len = len(constants.CONSOLE_PREFIX)
    assert f'say "{constants.CONSOLE_JOB_START[prefix_len:]} ' in init


def test_readme_run_folder_table_is_the_contract():
    with open(f"{TOP}/README.md", encoding="utf-8") as f:
        readme = f.read()
    assert run_folder.markdown() in readme, "regenerate it: python3 -m contract.run_folder"


def test_unknown_entries_of_a_run_folder(tmp_path):
    for name in ("trace.dat", "run.json", "rt-app", "surprise.txt"):
        (tmp_path / name).mkdir() if "." not in name else (tmp_path / name).write_text("")
    assert run_folder.unknown_entries(tmp_path) == ["surprise.txt"]
