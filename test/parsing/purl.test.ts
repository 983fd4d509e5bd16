import { describe, expect, it } from 'vitest';
import { parsePurl, purlQualifiers, readPurl } from '../../src/parsing/purl.js';

describe('parsePurl', () => {
  it.each([
    ['pkg:npm/lodash@4.17.20', { type: 'npm', name: 'lodash', version: '4.17.20' }],
    ['pkg:npm/%40babel/core@7.22.0', { type: 'npm', namespace: '@babel', name: 'core', version: '7.22.0' }],
    ['pkg:npm/@babel/core@7.22.0', { type: 'npm', namespace: '@babel', name: 'core', version: '7.22.0' }],
    [
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
      { type: 'maven', namespace: 'org.apache.logging.log4j', name: 'log4j-core', version: '2.14.1' },
    ],
    [
      'pkg:golang/github.com/gin-gonic/gin@v1.9.0',
      { type: 'golang', namespace: 'github.com/gin-gonic', name: 'gin', version: 'v1.9.0' },
    ],
    [
      'pkg:deb/debian/openssl@3.0.11-1~deb12u2?arch=amd64&distro=debian-12',
      { type: 'deb', namespace: 'debian', name: 'openssl', version: '3.0.11-1~deb12u2' },
    ],
    ['pkg:pypi/Django@4.2.1?foo=bar#sub/dir', { type: 'pypi', name: 'Django', version: '4.2.1' }],
    ['pkg:oci/alpine@sha256%3Aabc?tag=3.18', { type: 'oci', name: 'alpine', version: 'sha256:abc' }],
    ['  pkg://NPM/lodash@1.0.0/  ', { type: 'npm', name: 'lodash', version: '1.0.0' }],
    ['pkg:npm/lodash', { type: 'npm', name: 'lodash' }],
    ['pkg:npm/lodash@', { type: 'npm', name: 'lodash' }],
    ['pkg:npm//a//b@1', { type: 'npm', namespace: 'a', name: 'b', version: '1' }],
  ])('reads %s', (text, purl) => {
    expect(parsePurl(text)).toEqual(purl);
  });

  it('keeps a part that is not valid percent-encoding as written', () => {
    expect(parsePurl('pkg:npm/%E0%A4%A@1.0%')).toEqual({ type: 'npm', name: '%E0%A4%A', version: '1.0%' });
  });

  it.each([
    undefined,
    '',
    'lodash@4.17.20',
    'PKG:npm/lodash@1.0.0',
    'pkg:npm@1.0',
    'pkg:/lodash@1.0',
    'pkg:1npm/lodash@1.0',
    'pkg:np m/lodash@1.0',
    'pkg:npm/',
    'pkg:npm/?a=b',
  ])('answers undefined for %j', (text) => {
    expect(parsePurl(text)).toBeUndefined();
  });
});

describe('readPurl', () => {
  it.each([
    [42, 'not a purl'],
    ['lodash@4.17.20', 'not a purl'],
    ['pkg:npm@1.0', 'type and a name'],
    ['pkg:1npm/lodash@1.0', 'purl type "1npm" is not valid'],
    ['pkg:npm/', 'needs a name'],
  ])('%j → %s', (text, error) => {
    const reading = readPurl(text);
    expect(reading.ok).toBe(false);
    expect(reading.ok ? '' : reading.error).toContain(error);
  });

  it('refuses bad percent-encoding only when asked to be strict', () => {
    expect(readPurl('pkg:npm/%E0%A4%A@1.0')).toEqual({
      ok: true,
      purl: { type: 'npm', name: '%E0%A4%A', version: '1.0' },
    });
    expect(readPurl('pkg:npm/%E0%A4%A@1.0', { strictEncoding: true })).toEqual({
      ok: false,
      error: 'purl has bad percent-encoding',
    });
    expect(readPurl('pkg:npm/a@%ZZ', { strictEncoding: true })).toEqual({
      ok: false,
      error: 'purl has bad percent-encoding',
    });
    expect(readPurl('pkg:npm/%40scope/a@1', { strictEncoding: true })).toEqual({
      ok: true,
      purl: { type: 'npm', namespace: '@scope', name: 'a', version: '1' },
    });
  });
});

describe('purlQualifiers', () => {
  it('reads the qualifiers, keys in lower case and values decoded', () => {
    expect(purlQualifiers('pkg:oci/app@sha256%3Aabc?Repository_URL=ghcr.io%2Facme&tag=1.2#x')).toEqual({
      repository_url: 'ghcr.io/acme',
      tag: '1.2',
    });
  });

  it('keeps a value that is not valid percent-encoding as written and skips pairs without a key', () => {
    expect(purlQualifiers('pkg:deb/openssl@1?arch=%E0%A4%A&=x&flag&distro=debian')).toEqual({
      arch: '%E0%A4%A',
      distro: 'debian',
    });
  });

  it('answers nothing for text without qualifiers or that is not a purl', () => {
    expect(purlQualifiers('pkg:npm/lodash@1.0.0')).toEqual({});
    expect(purlQualifiers('pkg:npm/lodash@1.0.0#a?b=c')).toEqual({});
    expect(purlQualifiers('lodash?tag=1')).toEqual({});
  });
});
