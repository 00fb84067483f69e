"""What the host runner, the guest and the analysis agree on, each with one owner here:

- paths: the project's folders and the trace reader (TOP, BUILD, READER);
- constants: facts both the shell scripts and Python use (kernel names, the default
  platform and its grammar, HZ, the QEMU CPU model, the guest's console markers);
  tests/host/test_contract.py checks the shell side against them;
- rtapp_profile: the profile format (rt-app 1.0 plus the project's keys), checked and
  split into what the guest runs (python3 -m contract.rtapp_profile);
- run_folder: every file of a run folder and who writes it.

Nothing here imports pandas or the analysis: the runner loads it on every run.
"""
