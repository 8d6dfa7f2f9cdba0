#!/usr/bin/env bash
# Placeholder until the chroot setup lands: nothing to set up yet.
exit 0
