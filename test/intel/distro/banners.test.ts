import { describe, expect, it } from 'vitest';
import { parseDistroBanner } from '../../../src/intel/distro/banners.js';

describe('parseDistroBanner', () => {
  it.each([
    ['SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10', '8.9p1', '1:8.9p1-3ubuntu0.10'],
    ['SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.1', '8.9p1', '1:8.9p1-3ubuntu0.1'],
    ['SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13', '9.6p1', '1:9.6p1-3ubuntu13'],
    ['SSH-2.0-OpenSSH_9.3p1 Ubuntu-1ubuntu3.6', '9.3p1', '1:9.3p1-1ubuntu3.6'],
    ['SSH-2.0-OpenSSH_8.2p1 Ubuntu-4ubuntu0.5\r\n', '8.2p1', '1:8.2p1-4ubuntu0.5'],
  ])('%j is an Ubuntu openssh build with its epoch', (banner, upstreamVersion, packageVersion) => {
    expect(parseDistroBanner(banner)).toEqual({
      product: 'OpenSSH',
      upstreamVersion,
      distribution: 'Ubuntu',
      packageName: 'openssh',
      packageVersion,
      decidable: true,
    });
  });

  it('reads a Debian OpenSSH banner, revision with +deb', () => {
    expect(parseDistroBanner('SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3')).toMatchObject({
      distribution: 'Debian',
      packageName: 'openssh',
      packageVersion: '1:9.2p1-2+deb12u3',
      decidable: true,
    });
  });

  it('a bare OpenSSH banner (DebianBanner no) names no distribution and is not decidable', () => {
    expect(parseDistroBanner('SSH-2.0-OpenSSH_8.9p1')).toEqual({
      product: 'OpenSSH',
      upstreamVersion: '8.9p1',
      distribution: null,
      packageName: 'openssh',
      packageVersion: null,
      decidable: false,
    });
    expect(parseDistroBanner('SSH-2.0-OpenSSH_9.7 FreeBSD-20240318')).toMatchObject({
      distribution: null,
      decidable: false,
    });
  });

  it.each([
    ['Server: Apache/2.4.52 (Ubuntu)', 'Apache', '2.4.52', 'Ubuntu', 'apache2'],
    ['Server: Apache/2.4.41 (Ubuntu)', 'Apache', '2.4.41', 'Ubuntu', 'apache2'],
    ['Server: nginx/1.18.0 (Ubuntu)', 'nginx', '1.18.0', 'Ubuntu', 'nginx'],
    ['Apache/2.4.62 (Debian)', 'Apache', '2.4.62', 'Debian', 'apache2'],
    ['nginx/1.22.1', 'nginx', '1.22.1', null, 'nginx'],
  ])('%j: the revision is not visible, so not decidable', (banner, product, upstream, distribution, pkg) => {
    expect(parseDistroBanner(banner)).toEqual({
      product,
      upstreamVersion: upstream,
      distribution,
      packageName: pkg,
      packageVersion: null,
      decidable: false,
    });
  });

  it('an Ubuntu comment whose revision dpkg would refuse is not decidable', () => {
    expect(parseDistroBanner('SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10_x')).toMatchObject({
      distribution: 'Ubuntu',
      packageVersion: null,
      decidable: false,
    });
  });

  it.each([
    '',
    'SSH-2.0-dropbear_2022.83',
    'Server: Microsoft-IIS/10.0',
    'HTTP/1.1 200 OK',
    'SSH-2.0-OpenSSH_',
  ])('%j is not a build it knows', (banner) => {
    expect(parseDistroBanner(banner)).toBeNull();
  });
});
