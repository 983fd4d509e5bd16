// A light guess of the operating system from what discovery saw anyway: the SSH banner's comment
// (distributions put their name there: "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3") and the pattern
// of answering ports. A guess, reported as one; system scans (src/scanning/system) fingerprint properly.

const BANNER_HINTS: Array<[RegExp, string]> = [
  [/ubuntu|debian|raspbian|fedora|centos|red ?hat|rhel|alpine|suse|arch ?linux|linux/i, 'Linux'],
  [/windows/i, 'Windows'],
  [/freebsd/i, 'FreeBSD'],
  [/openbsd/i, 'OpenBSD'],
  [/netbsd/i, 'NetBSD'],
  [/cisco/i, 'Cisco IOS'],
  [/mikrotik|routeros/i, 'RouterOS'],
];

export function guessOs(openPorts: readonly number[], sshBanner: string | null): string | null {
  if (sshBanner) {
    for (const [pattern, os] of BANNER_HINTS) if (pattern.test(sshBanner)) return os;
  }
  const open = new Set(openPorts);
  // Remote Desktop, or the RPC endpoint mapper beside SMB: Windows far more often than not
  // (Samba on Linux opens 139/445 but not 135).
  if (open.has(3389) || (open.has(135) && (open.has(445) || open.has(139)))) return 'Windows';
  return null;
}
