// A small seccomp filter handed to bwrap (`--seccomp FD`): it refuses, with EPERM, the system calls
// that are kernel attack surface and that no test program needs — debugging other processes,
// io_uring, eBPF, perf, keyrings, mounts, modules — plus every 32-bit and x32 call. Everything else
// is allowed. Built by hand as classic BPF (no libseccomp), for x86_64 only; elsewhere the layer is
// reported missing.
import { arch } from "node:os";

/** x86_64 numbers of the refused calls. */
const DENIED_X86_64: Record<string, number> = {
  ptrace: 101,
  process_vm_readv: 310,
  process_vm_writev: 311,
  kcmp: 312,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  bpf: 321,
  perf_event_open: 298,
  userfaultfd: 323,
  keyctl: 250,
  add_key: 248,
  request_key: 249,
  mount: 165,
  umount2: 166,
  pivot_root: 155,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  kexec_load: 246,
  kexec_file_load: 320,
  init_module: 175,
  finit_module: 313,
  delete_module: 176,
  acct: 163,
  quotactl: 179,
  open_by_handle_at: 304,
  name_to_handle_at: 303,
  lookup_dcookie: 212,
  setns: 308,
  unshare: 272,
};

const AUDIT_ARCH_X86_64 = 0xc000003e;
const X32_SYSCALL_BIT = 0x40000000;
const EPERM = 1;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;

/** The filter as bytes (an array of `struct sock_filter`), or null on an architecture we do not cover. */
export function seccompFilter(): Buffer | null {
  if (arch() !== "x64") return null;
  const denied = Object.values(DENIED_X86_64);
  const program: Array<[number, number, number, number]> = [];
  // Indices: 0 load arch, 1 check arch, 2 load nr, 3 x32 check, 4.. one jeq per denied call, then allow, then deny.
  const denyAt = 4 + denied.length + 1;
  program.push([LD_W_ABS, 0, 0, 4]); // seccomp_data.arch
  program.push([JEQ_K, 0, denyAt - 2, AUDIT_ARCH_X86_64]); // other ABIs (i386 via int 0x80): refuse
  program.push([LD_W_ABS, 0, 0, 0]); // seccomp_data.nr
  program.push([JGE_K, denyAt - 4, 0, X32_SYSCALL_BIT]);
  denied.forEach((nr, i) => program.push([JEQ_K, denyAt - (4 + i) - 1, 0, nr]));
  program.push([RET_K, 0, 0, RET_ALLOW]);
  program.push([RET_K, 0, 0, RET_ERRNO | EPERM]);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}
