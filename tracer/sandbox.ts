/**
 * Verify mode's sandbox: the one place ndb runs someone's program, so it runs inside
 * bubblewrap (`bwrap`, the sandbox Flatpak uses; Debian's `bubblewrap` package) and never
 * without it. What it sets up (docs/security.md, "Verify sandbox"; test/verify-escape.test.ts
 * tries to get out of each):
 *
 * - new user, PID, network, IPC, UTS and cgroup namespaces; no nested user namespaces
 *   (`--disable-userns`); every capability dropped (`--cap-drop ALL`), no new privileges;
 *   a seccomp filter that refuses the kernel interfaces an unprivileged sandbox has no use for
 *   (io_uring, bpf, userfaultfd, perf events, keyrings, ptrace, mounts, ...; `DENIED_SYSCALLS`);
 * - when ndb runs as root, the sandbox runs as uid/gid 65534 (`setpriv`), so that nothing the
 *   kernel grants to uid 0 (owner rights on root's files, /proc/sys, RLIMIT_NPROC exemption)
 *   reaches the program;
 * - a file system of its own: a read-only root with only /usr (and the /bin, /lib, /sbin links
 *   or read-only binds), the interpreter's prefix when it lives elsewhere, a read-only copy of
 *   the program and the tracer, /proc of its PID namespace, a minimal /dev, and two small tmpfs
 *   (/tmp, the scratch directory and working directory; /dev/shm); nothing of the host's /tmp,
 *   /run, /home, /root or /etc, so no host Unix socket is reachable by path, and the network
 *   namespace has only its own loopback (no host IP, no host abstract sockets);
 * - limits that hold for the whole process tree: a cgroup (v2, else v1) with `pids.max` and a
 *   total memory limit where the machine offers a writable one, else a watchdog that counts the
 *   tree's tasks and resident memory every few milliseconds and kills it; plus the tracer's
 *   hard per-process limits (tracer.py --sandbox) and the wall clock (run-tracer.ts).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, closeSync, constants, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';

/** The uid and gid the sandbox runs as when ndb itself runs as root. */
export const SANDBOX_UID = 65534;
/**
 * Tasks (processes and threads) in the whole sandbox, bwrap's own two included: the program
 * can start 13 besides the tracer. (tracer.py's RLIMIT_NPROC of 16, which binds the sandbox's
 * uid inside its own user namespace, is the second wall.)
 */
export const SANDBOX_TASKS = 16;
/** Size of the scratch tmpfs (/tmp, the working directory) and of /dev/shm. */
export const SANDBOX_TMP_BYTES = 64 << 20;
export const SANDBOX_SHM_BYTES = 16 << 20;
/** The working directory inside the sandbox (on its /tmp). */
export const SANDBOX_WORK = '/tmp/work';

export type SandboxStatus =
  | { ok: true; bwrap: string; setpriv: string | null; limits: LimitsKind }
  | { ok: false; reason: string };

export type LimitsKind = 'cgroup v2' | 'cgroup v1' | 'watchdog';

const NOT_RUN = 'The program was not run.';
const INSTALL = 'Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap) or set NDB_BWRAP to its path.';

/** bwrap's path: NDB_BWRAP, else the first `bwrap` on PATH or in /usr/bin. */
export function bwrapPath(): string {
  const set = process.env.NDB_BWRAP;
  if (set !== undefined && set !== '') return set;
  return findOnPath('bwrap') ?? '/usr/bin/bwrap';
}

function findOnPath(name: string): string | null {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  for (const d of [...dirs, '/usr/bin', '/bin', '/usr/sbin']) {
    const p = join(d, name);
    try {
      accessSync(p, constants.X_OK);
      if (statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return null;
}

function asRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

const probes = new Map<string, SandboxStatus>();

/**
 * Whether verify mode can run a program here, and if not why, in words that say what to
 * install or allow. A real sandbox running the interpreter answers, so the answer is the
 * machine's, not a guess; a yes is kept per bwrap path and interpreter, a no is asked again
 * next time (bubblewrap may have been installed meanwhile).
 */
export function sandboxStatus(python: string): SandboxStatus {
  const bwrap = bwrapPath();
  const key = `${bwrap}\0${python}\0${process.env.NDB_SANDBOX_LIMITS ?? ''}`;
  let status = probes.get(key);
  if (status === undefined) {
    status = probe(bwrap, python);
    if (status.ok) probes.set(key, status);
  }
  return status;
}

function probe(bwrap: string, python: string): SandboxStatus {
  if (process.platform !== 'linux') {
    return { ok: false, reason: `verify mode runs the program only inside a sandbox (bubblewrap, Linux), and this is ${process.platform}. ${NOT_RUN}` };
  }
  try {
    accessSync(bwrap, constants.X_OK);
  } catch {
    return { ok: false, reason: `verify mode runs the program only inside a sandbox, and bubblewrap is not installed here (no executable ${bwrap}). ${INSTALL} ${NOT_RUN}` };
  }
  let setpriv: string | null = null;
  if (asRoot()) {
    setpriv = findOnPath('setpriv');
    if (setpriv === null) {
      return {
        ok: false,
        reason: `verify mode runs the program only inside a sandbox, and as root it first drops to uid ${SANDBOX_UID} with setpriv, which is missing. Install util-linux (Debian/Ubuntu: apt-get install util-linux). ${NOT_RUN}`,
      };
    }
  }
  const scratch = mkdtempSync(join(tmpdir(), 'ndb-sandbox-probe-'));
  const seccomp = openSeccomp(scratch);
  const interpreter = resolvePython(python);
  const args = bwrapArgs({ python: interpreter, files: [], seccomp: seccomp !== null });
  const cmd = setpriv ? setpriv : bwrap;
  const cmdArgs = setpriv ? [...setprivArgs(), bwrap, ...args, interpreter, '-c', 'pass'] : [...args, interpreter, '-c', 'pass'];
  const r = spawnSync(cmd, cmdArgs, {
    encoding: 'utf8',
    timeout: 10_000,
    env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
    stdio: ['ignore', 'pipe', 'pipe', ...(seccomp !== null ? [seccomp] : [])],
  });
  if (seccomp !== null) closeSync(seccomp);
  rmSync(scratch, { recursive: true, force: true });
  if (r.status !== 0) {
    const said = (r.stderr || r.error?.message || `exit status ${r.status}`).trim().split('\n').pop()!.slice(0, 300);
    const hint = /namespace|Operation not permitted|setting up uid map|No permissions/i.test(said)
      ? 'This kernel or container forbids unprivileged user namespaces: allow them (sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; in a container, a seccomp profile and AppArmor policy that permit them, e.g. docker --security-opt seccomp=unconfined), or run ndb on a machine that has them.'
      : `Check that bubblewrap works here (try: ${bwrap} --unshare-all --ro-bind /usr /usr ${python} -c pass).`;
    return { ok: false, reason: `verify mode runs the program only inside a sandbox, and bubblewrap cannot make one here (${said}). ${hint} ${NOT_RUN}` };
  }
  return { ok: true, bwrap, setpriv, limits: limitsKind() };
}

/** setpriv's arguments: become uid/gid 65534 with no supplementary groups and no capabilities. */
export function setprivArgs(): string[] {
  return [`--reuid=${SANDBOX_UID}`, `--regid=${SANDBOX_UID}`, '--clear-groups', '--inh-caps=-all', '--'];
}

/** The interpreter's absolute path (PATH lookup for a bare name). */
export function resolvePython(python: string): string {
  if (python.includes('/')) return resolve(python);
  return findOnPath(python) ?? python;
}

export interface SandboxFiles {
  /** The interpreter, as it will be run (absolute). */
  python: string;
  /** Host paths bound read-only at the same path inside. */
  files: string[];
  /** Whether the seccomp filter comes on file descriptor 3 (`openSeccomp`). */
  seccomp: boolean;
}

/** The file descriptor in bwrap's process that carries the seccomp filter. */
export const SECCOMP_FD = 3;

/**
 * The seccomp filter, open for reading (its file already removed), to hand to bwrap as file
 * descriptor 3; null where this architecture has no table. The caller closes it after spawning.
 */
export function openSeccomp(dir: string): number | null {
  const filter = seccompFilter();
  if (filter === null) return null;
  const path = join(dir, 'seccomp.bpf');
  writeFileSync(path, filter, { mode: 0o600 });
  const fd = openSync(path, 'r');
  unlinkSync(path);
  return fd;
}

/**
 * bwrap's arguments up to the command. The order matters: /tmp's tmpfs comes before the binds
 * that may land in it, the read-only remounts last.
 */
export function bwrapArgs(opts: SandboxFiles): string[] {
  const a = [
    '--unshare-user',
    '--disable-userns',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'ndb-sandbox',
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--ro-bind',
    '/usr',
    '/usr',
  ];
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    let st;
    try {
      st = lstatSync(top);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) a.push('--symlink', readlinkSync(top), top);
    else if (st.isDirectory()) a.push('--ro-bind', top, top);
  }
  // An interpreter outside /usr (a venv, /opt/python): its prefix, read-only.
  for (const p of new Set([opts.python, realOr(opts.python)])) {
    if (!p.startsWith('/usr/') && !/^\/(s?bin|lib(32|64|x32)?)\//.test(p)) {
      const prefix = dirname(dirname(p));
      if (prefix !== '/') a.push('--ro-bind', prefix, prefix);
    }
  }
  a.push('--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache');
  a.push('--ro-bind-try', '/etc/localtime', '/etc/localtime');
  a.push('--proc', '/proc', '--dev', '/dev');
  a.push('--perms', '1777', '--size', String(SANDBOX_SHM_BYTES), '--tmpfs', '/dev/shm');
  a.push('--perms', '1777', '--size', String(SANDBOX_TMP_BYTES), '--tmpfs', '/tmp');
  a.push('--dir', SANDBOX_WORK);
  for (const f of opts.files) a.push('--ro-bind', f, f);
  a.push('--remount-ro', '/dev', '--remount-ro', '/');
  if (opts.seccomp) a.push('--seccomp', String(SECCOMP_FD));
  a.push('--chdir', SANDBOX_WORK, '--');
  return a;
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

// ---- a seccomp filter ------------------------------------------------------------------------

/**
 * System calls the sandbox refuses (EPERM), as Flatpak's and Docker's default filters do: the
 * kernel interfaces most often used to escalate from an unprivileged process (io_uring, bpf,
 * userfaultfd, perf events, keyrings), ptrace and cross-process memory access, and what an
 * unprivileged sandbox has no use for (mounts, namespaces, modules, kexec, swap, reboot,
 * quotas, the kernel log, handles that bypass path lookup). Per architecture: the numbers differ.
 */
const DENIED_SYSCALLS: Record<string, { audit: number; nrs: Record<string, number> }> = {
  x64: {
    audit: 0xc000003e,
    nrs: {
      ptrace: 101, syslog: 103, uselib: 134, pivot_root: 155, acct: 163, mount: 165, umount2: 166, swapon: 167, swapoff: 168, reboot: 169,
      iopl: 172, ioperm: 173, init_module: 175, delete_module: 176, quotactl: 179, lookup_dcookie: 212, kexec_load: 246, add_key: 248,
      request_key: 249, keyctl: 250, unshare: 272, perf_event_open: 298, name_to_handle_at: 303, open_by_handle_at: 304, setns: 308,
      process_vm_readv: 310, process_vm_writev: 311, kcmp: 312, finit_module: 313, kexec_file_load: 320, bpf: 321, userfaultfd: 323,
      io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, open_tree: 428, move_mount: 429, fsopen: 430, fsconfig: 431,
      fsmount: 432, fspick: 433, mount_setattr: 442, vhangup: 153, modify_ldt: 154,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    nrs: {
      lookup_dcookie: 18, umount2: 39, mount: 40, pivot_root: 41, vhangup: 58, quotactl: 60, acct: 89, unshare: 97, kexec_load: 104,
      init_module: 105, delete_module: 106, syslog: 116, ptrace: 117, reboot: 142, add_key: 217, request_key: 218, keyctl: 219,
      swapon: 224, swapoff: 225, perf_event_open: 241, name_to_handle_at: 264, open_by_handle_at: 265, setns: 268,
      process_vm_readv: 270, process_vm_writev: 271, kcmp: 272, finit_module: 273, bpf: 280, userfaultfd: 282, kexec_file_load: 294,
      io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, open_tree: 428, move_mount: 429, fsopen: 430, fsconfig: 431,
      fsmount: 432, fspick: 433, mount_setattr: 442,
    },
  },
};

/** The refused system calls on this architecture, name -> number (empty: no filter here). */
export function deniedSyscalls(): Record<string, number> {
  return { ...(DENIED_SYSCALLS[process.arch]?.nrs ?? {}) };
}

/**
 * The filter as classic BPF (`struct sock_filter` records, what `bwrap --seccomp FD` reads), or
 * null on an architecture without a table. Another architecture's system calls (x86's 32-bit
 * entry, x32's numbers) end the process.
 */
export function seccompFilter(): Buffer | null {
  const table = DENIED_SYSCALLS[process.arch];
  if (!table) return null;
  const LD_W_ABS = 0x20;
  const JEQ_K = 0x15;
  const JGE_K = 0x35;
  const RET_K = 0x06;
  const RET_KILL_PROCESS = 0x80000000;
  const RET_ERRNO_EPERM = 0x00050000 | 1;
  const RET_ALLOW = 0x7fff0000;
  const nrs = Object.values(table.nrs);
  const prog: [number, number, number, number][] = [
    [LD_W_ABS, 0, 0, 4], // seccomp_data.arch
    [JEQ_K, 1, 0, table.audit],
    [RET_K, 0, 0, RET_KILL_PROCESS],
    [LD_W_ABS, 0, 0, 0], // seccomp_data.nr
  ];
  // x32 system calls (bit 30 set) share x86-64's audit arch: refused alike.
  if (process.arch === 'x64') prog.push([JGE_K, nrs.length + 1, 0, 0x40000000]);
  nrs.forEach((nr, i) => prog.push([JEQ_K, nrs.length - i, 0, nr]));
  prog.push([RET_K, 0, 0, RET_ALLOW]);
  prog.push([RET_K, 0, 0, RET_ERRNO_EPERM]);
  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach(([code, jt, jf, k], i) => {
    buf.writeUInt16LE(code, i * 8);
    buf.writeUInt8(jt, i * 8 + 2);
    buf.writeUInt8(jf, i * 8 + 3);
    buf.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return buf;
}

// ---- limits on the whole tree --------------------------------------------------------------

export interface TreeLimits {
  /** Tasks (processes and threads) at once. */
  tasks: number;
  /** Resident memory of the whole tree (cgroup: charged memory, tmpfs included), bytes. */
  memoryBytes: number;
}

/** How the sandbox's tree is limited, once started: a cgroup or a watchdog. */
export interface TreeGuard {
  kind: LimitsKind;
  /** Shell words that move the shell running them into the cgroup (none for the watchdog). */
  cgroupProcs: string[];
  /** Called with the sandbox's outermost pid once it is spawned. */
  started(pid: number, kill: (why: string) => void): void;
  /** Why the guard ended the run, if it did (or the cgroup recorded an OOM kill). */
  verdict(): string | null;
  /** Kills whatever is left and removes the cgroup. */
  close(): void;
}

interface CgroupDirs {
  kind: 'cgroup v2' | 'cgroup v1';
  /** The parent directory per controller (v2: one for all). */
  parents: { controllers: string[]; dir: string }[];
}

let cgroupProbe: CgroupDirs | null | undefined;

/** What limits the tree on this machine (NDB_SANDBOX_LIMITS=watchdog forces the watchdog). */
export function limitsKind(): LimitsKind {
  return cgroupDirs()?.kind ?? 'watchdog';
}

function cgroupDirs(): CgroupDirs | null {
  if (process.env.NDB_SANDBOX_LIMITS === 'watchdog') return null;
  if (cgroupProbe === undefined) {
    try {
      cgroupProbe = findCgroupV2() ?? findCgroupV1();
    } catch {
      cgroupProbe = null;
    }
    if (cgroupProbe) removeStale(cgroupProbe);
  }
  return cgroupProbe;
}

/** Cgroups left by an ndb that died mid-run (its pid is gone): emptied and removed. */
function removeStale(dirs: CgroupDirs): void {
  for (const { dir } of dirs.parents) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      // Only this PID namespace's (its pids mean something here), and only empty ones.
      const m = /^ndb-sandbox-(\d+)-(\d+)-\d+$/.exec(name);
      if (!m || m[1] !== PID_NS || alive(Number(m[2]))) continue;
      try {
        rmdirSync(join(dir, name));
      } catch {
        // not empty, or gone
      }
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface Mount {
  root: string;
  point: string;
  fstype: string;
  superOpts: string[];
}

function cgroupMounts(): Mount[] {
  const mounts: Mount[] = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [pre, post] = line.split(' - ');
    if (!pre || !post) continue;
    const f = pre.split(' ');
    const [fstype, , opts] = post.split(' ');
    if (fstype === 'cgroup' || fstype === 'cgroup2') {
      mounts.push({ root: unescape(f[3]!), point: unescape(f[4]!), fstype, superOpts: (opts ?? '').split(',') });
    }
  }
  return mounts;
}

function unescape(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** This process's cgroup path per hierarchy: '' for v2, else each controller name. */
function ownCgroups(): Map<string, string> {
  const own = new Map<string, string>();
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === '') own.set('', m[2]!);
    else for (const c of m[1]!.split(',')) own.set(c, m[2]!);
  }
  return own;
}

function within(mount: Mount, path: string): string {
  const rel = mount.root !== '/' && path.startsWith(mount.root) ? path.slice(mount.root.length) : path;
  return join(mount.point, rel);
}

/** A v2 directory under which a child cgroup gets pids and memory: writable, both delegated. */
function findCgroupV2(): CgroupDirs | null {
  const mount = cgroupMounts().find((m) => m.fstype === 'cgroup2');
  if (!mount) return null;
  const own = ownCgroups().get('');
  const candidates = [process.env.NDB_SANDBOX_CGROUP, mount.point, own !== undefined ? within(mount, own) : undefined];
  for (const dir of candidates) {
    if (!dir || !existsSync(join(dir, 'cgroup.subtree_control'))) continue;
    if (!hasControllers(dir, ['pids', 'memory'])) {
      try {
        // Fails (EBUSY) where the directory holds processes and is not the root.
        writeFileSync(join(dir, 'cgroup.subtree_control'), '+pids +memory');
      } catch {
        continue;
      }
      if (!hasControllers(dir, ['pids', 'memory'])) continue;
    }
    if (canMakeChild(dir)) return { kind: 'cgroup v2', parents: [{ controllers: ['pids', 'memory', 'cpu'], dir }] };
  }
  return null;
}

function hasControllers(dir: string, want: string[]): boolean {
  try {
    const have = readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8').trim().split(/\s+/);
    return want.every((c) => have.includes(c));
  } catch {
    return false;
  }
}

/** v1: the pids and memory hierarchies, each at this process's own cgroup. */
function findCgroupV1(): CgroupDirs | null {
  const own = ownCgroups();
  const parents: { controllers: string[]; dir: string }[] = [];
  for (const controller of ['pids', 'memory']) {
    const mount = cgroupMounts().find((m) => m.fstype === 'cgroup' && m.superOpts.includes(controller));
    const path = own.get(controller);
    if (!mount || path === undefined) return null;
    const dir = within(mount, path);
    if (!canMakeChild(dir)) return null;
    parents.push({ controllers: [controller], dir });
  }
  return { kind: 'cgroup v1', parents };
}

function canMakeChild(dir: string): boolean {
  const test = join(dir, `ndb-probe-${process.pid}`);
  try {
    mkdirSync(test);
    rmdirSync(test);
    return true;
  } catch {
    return false;
  }
}

let serial = 0;

/** This PID namespace's inode, in the cgroups' names: a pid names a process only within it. */
const PID_NS = (() => {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '0';
  } catch {
    return '0';
  }
})();

/** Limits for one run's tree: a fresh cgroup, or a watchdog where none can be made. */
export function guardTree(limits: TreeLimits): TreeGuard {
  const dirs = cgroupDirs();
  if (dirs) {
    try {
      return cgroupGuard(dirs, limits);
    } catch {
      // e.g. the hierarchy became unwritable: the watchdog still holds
    }
  }
  return watchdogGuard(limits);
}

function cgroupGuard(dirs: CgroupDirs, limits: TreeLimits): TreeGuard {
  const name = `ndb-sandbox-${PID_NS}-${process.pid}-${++serial}`;
  const made: { controllers: string[]; dir: string }[] = [];
  const write = (dir: string, file: string, value: string, required: boolean) => {
    try {
      writeFileSync(join(dir, file), value);
    } catch (err) {
      if (required) throw err;
    }
  };
  try {
    for (const parent of dirs.parents) {
      const dir = join(parent.dir, name);
      mkdirSync(dir);
      made.push({ controllers: parent.controllers, dir });
      if (dirs.kind === 'cgroup v2') {
        write(dir, 'pids.max', String(limits.tasks), true);
        write(dir, 'memory.max', String(limits.memoryBytes), true);
        write(dir, 'memory.swap.max', '0', false);
        write(dir, 'memory.oom.group', '0', false);
        // One CPU at most, where the cpu controller is delegated.
        write(dir, 'cpu.max', '100000 100000', false);
      } else if (parent.controllers.includes('pids')) {
        write(dir, 'pids.max', String(limits.tasks), true);
      } else {
        write(dir, 'memory.limit_in_bytes', String(limits.memoryBytes), true);
        write(dir, 'memory.memsw.limit_in_bytes', String(limits.memoryBytes), false);
      }
    }
  } catch (err) {
    removeCgroups(made.map((m) => m.dir));
    throw err;
  }
  const memDir = made.find((m) => m.controllers.includes('memory'))!.dir;
  const oomKills = () => {
    try {
      const text = readFileSync(join(memDir, dirs.kind === 'cgroup v2' ? 'memory.events' : 'memory.oom_control'), 'utf8');
      return Number(/oom_kill (\d+)/.exec(text)?.[1] ?? 0);
    } catch {
      return 0;
    }
  };
  return {
    kind: dirs.kind,
    cgroupProcs: made.map((m) => join(m.dir, 'cgroup.procs')),
    started() {},
    verdict: () =>
      oomKills() > 0 ? `its processes together went over the sandbox's ${Math.round(limits.memoryBytes / (1 << 20))} MiB of memory and the kernel killed one` : null,
    close: () => removeCgroups(made.map((m) => m.dir)),
  };
}

/** Kills every process left in the cgroups, then removes them (a few tries: exits take time). */
function removeCgroups(dirs: string[]): void {
  for (const dir of dirs) {
    try {
      writeFileSync(join(dir, 'cgroup.kill'), '1');
    } catch {
      // v1, or a kernel before 5.14: by pid
    }
    for (let tries = 0; tries < 200; tries++) {
      try {
        const pids = readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter((l) => l !== '');
        for (const pid of pids) {
          // 0: a process outside this PID namespace (never ours; kill(0) would be our own group).
          if (!(Number(pid) > 0)) continue;
          try {
            process.kill(Number(pid), 'SIGKILL');
          } catch {
            // gone
          }
        }
        rmdirSync(dir);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') break;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      }
    }
  }
}

/**
 * How often the watchdog looks, in ms: reading the tree through /proc's `children` files costs
 * a few reads per process; without them (CONFIG_PROC_CHILDREN off) it reads every process's
 * stat, about 4 ms for 100 processes, so less often.
 */
const WATCH_MS = 10;
const WATCH_SCAN_MS = 40;

function watchdogGuard(limits: TreeLimits): TreeGuard {
  let timer: NodeJS.Timeout | undefined;
  let why: string | null = null;
  const page = 4096;
  return {
    kind: 'watchdog',
    cgroupProcs: [],
    started(root, kill) {
      const look = () => {
        const tree = treeOf(root);
        if (tree === null) return;
        let tasks = 0;
        let rss = 0;
        for (const p of tree) {
          tasks += p.threads;
          rss += p.rssPages * page;
        }
        if (tasks > limits.tasks) why = `it started more than ${limits.tasks} processes and threads at once`;
        else if (rss > limits.memoryBytes) why = `its processes together held more than ${Math.round(limits.memoryBytes / (1 << 20))} MiB of memory`;
        if (why !== null) {
          clearInterval(timer);
          kill(why);
        }
      };
      timer = setInterval(look, existsSync(`/proc/${process.pid}/task/${process.pid}/children`) ? WATCH_MS : WATCH_SCAN_MS);
      timer.unref();
    },
    verdict: () => why,
    close: () => clearInterval(timer),
  };
}

interface Proc {
  pid: number;
  ppid: number;
  threads: number;
  rssPages: number;
}

function statOf(pid: number): Proc | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // pid (comm) state ppid ... num_threads(20) ... rss(24): comm may hold spaces and parens.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid, ppid: Number(f[1]), threads: Number(f[17]), rssPages: Number(f[21]) };
}

/** `root` and its descendants, from /proc (null when root is gone). */
function treeOf(root: number): Proc[] | null {
  if (!existsSync(`/proc/${root}/task/${root}/children`)) return treeByScan(root);
  const out: Proc[] = [];
  const todo = [root];
  const seen = new Set<number>();
  while (todo.length > 0) {
    const pid = todo.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const p = statOf(pid);
    if (p === null) {
      if (pid === root) return null;
      continue;
    }
    out.push(p);
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1').trim().split(/\s+/)) if (c !== '') todo.push(Number(c));
      } catch {
        // gone meanwhile
      }
    }
  }
  return out;
}

/** The same by reading every process's stat (where /proc has no `children` files). */
function treeByScan(root: number): Proc[] | null {
  const children = new Map<number, Proc[]>();
  let rootProc: Proc | null = null;
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const p = statOf(Number(name));
    if (p === null) continue;
    if (p.pid === root) rootProc = p;
    let list = children.get(p.ppid);
    if (!list) children.set(p.ppid, (list = []));
    list.push(p);
  }
  if (!rootProc) return null;
  const out: Proc[] = [];
  const todo = [rootProc];
  while (todo.length > 0) {
    const p = todo.pop()!;
    out.push(p);
    for (const c of children.get(p.pid) ?? []) todo.push(c);
  }
  return out;
}
