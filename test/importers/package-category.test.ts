import { describe, expect, it } from 'vitest';
import { softwareCategoryOfPurl } from '../../src/importers/common/package-category.js';

describe('softwareCategoryOfPurl', () => {
  it('calls the packages of a distribution’s package manager OsPackage', () => {
    expect(softwareCategoryOfPurl('pkg:deb/debian/openssl@3.0.11?arch=amd64')).toBe('OsPackage');
    expect(softwareCategoryOfPurl('pkg:RPM/redhat/bash@5.1')).toBe('OsPackage');
    expect(softwareCategoryOfPurl('pkg:apk/alpine/musl@1.2.4')).toBe('OsPackage');
  });

  it('calls anything else a Library, a text that is not a purl too', () => {
    expect(softwareCategoryOfPurl('pkg:npm/lodash@4.17.20')).toBe('Library');
    expect(softwareCategoryOfPurl('pkg:maven/org.apache/commons@1')).toBe('Library');
    expect(softwareCategoryOfPurl('deb/debian/openssl')).toBe('Library');
    expect(softwareCategoryOfPurl(undefined)).toBe('Library');
  });
});
