import { describe, expect, it } from 'vitest';
import { parseCpe23 } from '../../../src/intel/cpe/cpe.js';
import { cpesFor, nvdVersion, VENDOR_ALIASES } from '../../../src/scanning/fingerprints/index.js';

describe('vendor aliases', () => {
  it('names nginx under every vendor NVD has used', () => {
    expect(cpesFor('nginx', '1.25.3')).toEqual([
      'cpe:2.3:a:igor_sysoev:nginx:1.25.3:*:*:*:*:*:*:*',
      'cpe:2.3:a:nginx:nginx:1.25.3:*:*:*:*:*:*:*',
      'cpe:2.3:a:f5:nginx:1.25.3:*:*:*:*:*:*:*',
      'cpe:2.3:a:f5:nginx_open_source:1.25.3:*:*:*:*:*:*:*',
    ]);
  });

  it('gives no CPE for a product not in the table', () => {
    expect(cpesFor('gws', '1.0')).toEqual([]);
  });

  it('escapes a version per CPE 2.3 and keeps it readable back', () => {
    const [text] = cpesFor('lighttpd', '1.0:beta');
    expect(text).toBe('cpe:2.3:a:lighttpd:lighttpd:1.0\\:beta:*:*:*:*:*:*:*');
    const parsed = parseCpe23(text!);
    expect(parsed.ok && parsed.cpe.version).toBe('1.0:beta');
    expect(cpesFor('Exim', '4.96+fix')).toEqual(['cpe:2.3:a:exim:exim:4.96\\+fix:*:*:*:*:*:*:*']);
  });

  it('keeps a version of "-" or "*" literal, not NA or ANY', () => {
    expect(cpesFor('Exim', '-')).toEqual(['cpe:2.3:a:exim:exim:\\-:*:*:*:*:*:*:*']);
    expect(cpesFor('Exim', '*')).toEqual(['cpe:2.3:a:exim:exim:\\*:*:*:*:*:*:*:*']);
  });

  it("splits OpenSSH's portable release into NVD's version and update, and nothing else", () => {
    expect(nvdVersion('OpenSSH', '8.9p1')).toEqual({ version: '8.9', update: 'p1' });
    expect(nvdVersion('OpenSSH', '9.0')).toEqual({ version: '9.0', update: null });
    expect(nvdVersion('Dropbear', '2022.83p1')).toEqual({ version: '2022.83p1', update: null });
    expect(cpesFor('OpenSSH', '8.9p1')).toEqual(['cpe:2.3:a:openbsd:openssh:8.9:p1:*:*:*:*:*:*']);
  });

  it('holds only names that parse as CPE 2.3 application names', () => {
    for (const product of Object.keys(VENDOR_ALIASES)) {
      for (const text of cpesFor(product, '1.2.3')) {
        const parsed = parseCpe23(text);
        expect(parsed.ok && parsed.cpe.part).toBe('a');
      }
    }
  });
});
