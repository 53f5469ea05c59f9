#!/usr/bin/env python3
"""Stands in for ssh in tests: `fake_ssh.py [-tt] [-o OPT]... HOST REMOTE_COMMAND`.

Like ssh it hands REMOTE_COMMAND to a shell (here on this machine), and it
records the host it was asked for. It execs the shell, so signals sent to it
reach the "remote" command as a dropped ssh connection would.
"""
import os
import sys

args = sys.argv[1:]
while args and args[0].startswith("-"):
    opt = args.pop(0)
    if opt == "-o":
        args.pop(0)
host, remote = args[0], " ".join(args[1:])
os.environ["FAKE_SSH_HOST"] = host
os.execv("/bin/sh", ["/bin/sh", "-c", remote])
