#!/usr/bin/env python3
"""Run COMMAND... on a new terminal, wait for "ready" from it, type Ctrl-C
(the kernel then signals the terminal's whole foreground process group, as
a user's Ctrl-C does), read the rest and print the first "SIGINT N" line
of the output (tests/workloads/sigints prints it) and the exit status.
The whole output goes to standard error."""
import os
import pty
import re
import sys

args = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(args[0], args)
out = b""
while b"ready" not in out:
    chunk = os.read(fd, 4096)
    if not chunk:
        break
    out += chunk
os.write(fd, b"\x03")
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:  # EIO: the terminal's last user has gone
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
text = out.decode(errors="replace")
sys.stderr.write(text)
got = re.findall(r"SIGINT [0-9]+", text)
print(got[0] if got else "no SIGINT line", os.waitstatus_to_exitcode(status))
