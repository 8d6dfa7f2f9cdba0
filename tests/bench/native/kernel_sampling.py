"""The kernel's own cost of sampling a thread as --native-stacks has it sampled: a
task-clock perf event on the thread at a given period, with no record at all, or with
the user registers and N bytes of user stack per sample (what --native-stacks asks for),
into a ring mapped read-only (the kernel overwrites it; nobody reads it). No gilscope
involved: the floor below which no perf-based sampler's slowdown of the target can go on
this machine.
"""
import ctypes
import mmap
import os

PERF_TYPE_SOFTWARE = 1
PERF_COUNT_SW_TASK_CLOCK = 1
PERF_SAMPLE_TID = 1 << 1
PERF_SAMPLE_TIME = 1 << 2
PERF_SAMPLE_REGS_USER = 1 << 12
PERF_SAMPLE_STACK_USER = 1 << 13
EXCLUDE_KERNEL = 1 << 5
EXCLUDE_HV = 1 << 6
SYS_PERF_EVENT_OPEN = 298  # x86-64
REGS_USER = 0xFF0FFF  # ax..ip, r8-r15: the registers gilscope asks for


class PerfEventAttr(ctypes.Structure):
    # struct perf_event_attr up to sig_data (PERF_ATTR_SIZE_VER7, 128 bytes).
    _fields_ = [("type", ctypes.c_uint32), ("size", ctypes.c_uint32),
                ("config", ctypes.c_uint64), ("sample_period", ctypes.c_uint64),
                ("sample_type", ctypes.c_uint64), ("read_format", ctypes.c_uint64),
                ("flags", ctypes.c_uint64), ("wakeup_events", ctypes.c_uint32),
                ("bp_type", ctypes.c_uint32), ("config1", ctypes.c_uint64),
                ("config2", ctypes.c_uint64), ("branch_sample_type", ctypes.c_uint64),
                ("sample_regs_user", ctypes.c_uint64), ("sample_stack_user", ctypes.c_uint32),
                ("clockid", ctypes.c_int32), ("sample_regs_intr", ctypes.c_uint64),
                ("aux_watermark", ctypes.c_uint32), ("sample_max_stack", ctypes.c_uint16),
                ("reserved_2", ctypes.c_uint16), ("aux_sample_size", ctypes.c_uint32),
                ("reserved_3", ctypes.c_uint32), ("sig_data", ctypes.c_uint64)]


class KernelSampling:
    """with KernelSampling(tid, period_ns, stack_bytes): the thread is sampled meanwhile.
    stack_bytes None: the event ticks with no ring, so it writes no record."""

    def __init__(self, tid, period_ns, stack_bytes):
        self.tid, self.period_ns, self.stack_bytes = tid, period_ns, stack_bytes
        self.fd, self.ring = -1, None

    def __enter__(self):
        attr = PerfEventAttr()
        attr.type, attr.size = PERF_TYPE_SOFTWARE, ctypes.sizeof(PerfEventAttr)
        attr.config, attr.sample_period = PERF_COUNT_SW_TASK_CLOCK, self.period_ns
        attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME
        if self.stack_bytes:
            attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER
            attr.sample_regs_user, attr.sample_stack_user = REGS_USER, self.stack_bytes
        attr.flags = EXCLUDE_KERNEL | EXCLUDE_HV
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        self.fd = libc.syscall(SYS_PERF_EVENT_OPEN, ctypes.byref(attr), self.tid, -1, -1, 0)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "perf_event_open: " + os.strerror(ctypes.get_errno()))
        if self.stack_bytes is not None:
            self.ring = mmap.mmap(self.fd, 17 * mmap.PAGESIZE, mmap.MAP_SHARED, mmap.PROT_READ)
        return self

    def __exit__(self, *exc):
        if self.ring is not None:
            self.ring.close()
        os.close(self.fd)
