import { describe, expect, it } from 'vitest';
import {
  compileConfigurations,
  compileEntry,
  entryMatchesCpe,
  evaluateConfigurations,
  matchConfigurations,
  prepareTarget,
  type TargetInput,
  targetCpe,
} from '../../../src/intel/cpe/configuration.js';
import { parseCpe } from '../../../src/intel/cpe/cpe.js';
import type { Configuration, CpeMatch } from '../../../src/intel/types.js';
import { nvd } from './records.js';

function check(cveId: string, inputs: TargetInput | TargetInput[]) {
  return matchConfigurations(nvd(cveId).configurations, inputs);
}

function vulnerable(cveId: string, inputs: TargetInput | TargetInput[]): boolean {
  return check(cveId, inputs).vulnerable;
}

const cpe23 = (vendor: string, product: string, version: string, update = '*') =>
  `cpe:2.3:a:${vendor}:${product}:${version}:${update}:*:*:*:*:*:*`;

describe('Apache httpd path traversal (exact versions)', () => {
  it('2.4.49 is vulnerable to CVE-2021-41773, 2.4.48 and 2.4.50 are not', () => {
    const result = check('CVE-2021-41773', cpe23('apache', 'http_server', '2.4.49'));
    expect(result.vulnerable).toBe(true);
    expect(result.platformAssumed).toBe(false);
    expect(result.matches).toEqual([
      {
        criteria: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
        matchCriteriaId: expect.any(String),
        vulnerable: true,
        cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      },
    ]);
    expect(vulnerable('CVE-2021-41773', cpe23('apache', 'http_server', '2.4.48'))).toBe(false);
    expect(vulnerable('CVE-2021-41773', cpe23('apache', 'http_server', '2.4.50'))).toBe(false);
  });

  it('CVE-2021-42013 lists 2.4.49 and 2.4.50', () => {
    expect(vulnerable('CVE-2021-42013', cpe23('apache', 'http_server', '2.4.50'))).toBe(true);
    expect(vulnerable('CVE-2021-42013', cpe23('apache', 'http_server', '2.4.49'))).toBe(true);
    expect(vulnerable('CVE-2021-42013', cpe23('apache', 'http_server', '2.4.51'))).toBe(false);
    expect(vulnerable('CVE-2021-42013', cpe23('apache', 'http_server', '2.4.48'))).toBe(false);
  });

  it('reads the URI binding and service descriptions alike', () => {
    expect(vulnerable('CVE-2021-41773', 'cpe:/a:apache:http_server:2.4.49')).toBe(true);
    expect(
      vulnerable('CVE-2021-41773', { vendor: 'Apache', product: 'HTTP_Server', version: '2.4.49' }),
    ).toBe(true);
    expect(vulnerable('CVE-2021-41773', { product: 'http_server', version: '2.4.49' })).toBe(true);
    expect(
      vulnerable('CVE-2021-41773', { vendor: 'oracle', product: 'http_server', version: '2.4.49' }),
    ).toBe(false);
  });

  it('CVE-2023-25690 is a closed range 2.4.0 ≤ v ≤ 2.4.55', () => {
    for (const v of ['2.4.0', '2.4.49', '2.4.55'])
      expect(vulnerable('CVE-2023-25690', cpe23('apache', 'http_server', v))).toBe(true);
    for (const v of ['2.2.34', '2.4.56', '2.4.57'])
      expect(vulnerable('CVE-2023-25690', cpe23('apache', 'http_server', v))).toBe(false);
    expect(check('CVE-2023-25690', cpe23('apache', 'http_server', '2.4.49')).matches[0]).toMatchObject({
      versionStartIncluding: '2.4.0',
      versionEndIncluding: '2.4.55',
    });
  });

  it('does not report a version-less service as vulnerable to versioned criteria', () => {
    expect(vulnerable('CVE-2021-41773', 'cpe:/a:apache:http_server')).toBe(false);
    expect(vulnerable('CVE-2023-25690', { vendor: 'apache', product: 'http_server', version: '' })).toBe(
      false,
    );
  });
});

describe('OpenSSH regreSSHion, CVE-2024-6387 (ranges, exact entries, the portable p1 update)', () => {
  // The record: < 4.4, 4.4:-, 8.5:p1, 8.6 ≤ v < 9.8, 9.8:-.
  const record = 'CVE-2024-6387';

  it.each(['8.5p1', '8.6p1', '8.9p1', '9.0p1', '9.3p2', '9.7p1', '4.3p2', '3.9p1', '1.2.3'])(
    'nmap URI openssh %s is vulnerable',
    (version) => {
      expect(vulnerable(record, `cpe:/a:openbsd:openssh:${version}`)).toBe(true);
    },
  );

  it.each(['8.4p1', '8.5p2', '9.8p1', '9.9p1', '4.4p1', '7.7p1'])('nmap URI openssh %s is not', (version) => {
    expect(vulnerable(record, `cpe:/a:openbsd:openssh:${version}`)).toBe(false);
  });

  it('matches 8.5p1 through the exact 8.5:p1 entry, in both bindings and split or not', () => {
    for (const input of [
      'cpe:/a:openbsd:openssh:8.5p1',
      cpe23('openbsd', 'openssh', '8.5', 'p1'),
      cpe23('openbsd', 'openssh', '8.5p1'),
      { vendor: 'openbsd', product: 'openssh', version: '8.5p1' },
      { vendor: 'openbsd', product: 'openssh', version: '8.5', update: 'p1' },
    ]) {
      const result = check(record, input);
      expect(result.vulnerable, JSON.stringify(input)).toBe(true);
      expect(result.matches.map((m) => m.criteria)).toEqual(['cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*']);
    }
  });

  it('compares a split 2.3 name as version+update against ranges', () => {
    const result = check(record, cpe23('openbsd', 'openssh', '9.7', 'p1'));
    expect(result.vulnerable).toBe(true);
    expect(result.matches[0]).toMatchObject({ versionStartIncluding: '8.6', versionEndExcluding: '9.8' });
    expect(vulnerable(record, cpe23('openbsd', 'openssh', '9.8', 'p1'))).toBe(false);
    expect(vulnerable(record, cpe23('openbsd', 'openssh', '8.4', 'p1'))).toBe(false);
  });

  it('follows the record for OpenBSD-native 4.4 and 9.8 (listed with update NA)', () => {
    expect(vulnerable(record, 'cpe:/a:openbsd:openssh:4.4')).toBe(true);
    expect(vulnerable(record, cpe23('openbsd', 'openssh', '4.4', '-'))).toBe(true);
    expect(vulnerable(record, 'cpe:/a:openbsd:openssh:4.4p1')).toBe(false);
    expect(vulnerable(record, 'cpe:/a:openbsd:openssh:9.8')).toBe(true);
  });

  it('matches the versions nmap reported in the scanner fixtures', () => {
    expect(check(record, 'cpe:/a:openbsd:openssh:8.9p1').matches[0]).toMatchObject({
      criteria: 'cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*',
      cpe: 'cpe:2.3:a:openbsd:openssh:8.9p1:*:*:*:*:*:*:*',
      versionStartIncluding: '8.6',
      versionEndExcluding: '9.8',
    });
    expect(vulnerable(record, 'cpe:/a:openbsd:openssh:9.6p1')).toBe(true);
  });

  it('CVE-2023-38408: < 9.3 and 9.3 / 9.3p1 exactly', () => {
    for (const v of ['9.2p1', '9.3', '9.3p1', '8.9p1'])
      expect(vulnerable('CVE-2023-38408', `cpe:/a:openbsd:openssh:${v}`)).toBe(true);
    for (const v of ['9.3p2', '9.4p1', '9.8p1'])
      expect(vulnerable('CVE-2023-38408', `cpe:/a:openbsd:openssh:${v}`)).toBe(false);
  });
});

describe('OpenSSL punycode overflow, CVE-2022-3602', () => {
  it.each(['3.0.0', '3.0.1', '3.0.5', '3.0.6'])('%s is vulnerable', (version) => {
    expect(vulnerable('CVE-2022-3602', { vendor: 'openssl', product: 'openssl', version })).toBe(true);
  });

  it.each(['3.0.7', '3.0.8', '3.1.0', '1.1.1k', '1.1.1w', '1.0.2u', '3.0.0-alpha1'])(
    '%s is not',
    (version) => {
      expect(vulnerable('CVE-2022-3602', { vendor: 'openssl', product: 'openssl', version })).toBe(false);
    },
  );

  it('checks the extended attributes: node.js ranges are for sw_edition NA, 18.12.0 for LTS', () => {
    const node = (version: string, swEdition: string) =>
      `cpe:2.3:a:nodejs:node.js:${version}:*:*:*:${swEdition}:*:*:*`;
    expect(vulnerable('CVE-2022-3602', node('18.5.0', '*'))).toBe(true);
    expect(vulnerable('CVE-2022-3602', node('18.5.0', '-'))).toBe(true);
    expect(vulnerable('CVE-2022-3602', node('18.5.0', 'lts'))).toBe(false);
    expect(vulnerable('CVE-2022-3602', node('18.12.0', 'lts'))).toBe(true);
    expect(vulnerable('CVE-2022-3602', node('18.12.0', '-'))).toBe(false);
    expect(vulnerable('CVE-2022-3602', node('18.11.0', '*'))).toBe(false);
  });
});

describe('running-on pairs (AND of a vulnerable node and a platform node)', () => {
  const SMB = 'cpe:/a:microsoft:server_message_block:1.0';

  it('CVE-2017-0144: SMBv1 on Windows 7 SP1 is vulnerable, the platform being evidence', () => {
    const result = check('CVE-2017-0144', [SMB, 'cpe:/o:microsoft:windows_7::sp1']);
    expect(result.vulnerable).toBe(true);
    expect(result.platformAssumed).toBe(false);
    expect(result.matches).toEqual([
      expect.objectContaining({
        criteria: 'cpe:2.3:a:microsoft:server_message_block:1.0:*:*:*:*:*:*:*',
        vulnerable: true,
      }),
      expect.objectContaining({
        criteria: 'cpe:2.3:o:microsoft:windows_7:-:sp1:*:*:*:*:*:*',
        vulnerable: false,
      }),
    ]);
  });

  it('CVE-2017-0144: with no OS known the platform is assumed and said so', () => {
    const result = check('CVE-2017-0144', SMB);
    expect(result.vulnerable).toBe(true);
    expect(result.platformAssumed).toBe(true);
    expect(result.matches.map((m) => m.vulnerable)).toEqual([true]);
  });

  it('CVE-2017-0144: a known OS that is not listed rules it out', () => {
    expect(vulnerable('CVE-2017-0144', [SMB, 'cpe:/o:linux:linux_kernel:5.4'])).toBe(false);
    expect(vulnerable('CVE-2017-0144', [SMB, 'cpe:/o:microsoft:windows_7::sp2'])).toBe(false);
    expect(vulnerable('CVE-2017-0144', [SMB, 'cpe:2.3:o:microsoft:windows_10_1607:-:*:*:*:*:*:x64:*'])).toBe(
      true,
    );
    expect(
      vulnerable('CVE-2017-0144', [SMB, 'cpe:2.3:o:microsoft:windows_10_1607:-:*:*:*:*:*:arm64:*']),
    ).toBe(false);
  });

  it('CVE-2017-0144: the platform alone never makes anything vulnerable', () => {
    expect(vulnerable('CVE-2017-0144', 'cpe:/o:microsoft:windows_7::sp1')).toBe(false);
    expect(vulnerable('CVE-2017-0144', 'cpe:/a:microsoft:server_message_block:2.0')).toBe(false);
  });

  it('CVE-2019-19781: Citrix ADC firmware on its appliance (o + h)', () => {
    const firmware = 'cpe:2.3:o:citrix:application_delivery_controller_firmware:13.0:*:*:*:*:*:*:*';
    const appliance = 'cpe:2.3:h:citrix:application_delivery_controller:-:*:*:*:*:*:*:*';
    expect(check('CVE-2019-19781', [firmware, appliance])).toMatchObject({
      vulnerable: true,
      platformAssumed: false,
    });
    expect(check('CVE-2019-19781', firmware)).toMatchObject({ vulnerable: true, platformAssumed: true });
    expect(vulnerable('CVE-2019-19781', [firmware, 'cpe:2.3:h:citrix:gateway:-:*:*:*:*:*:*:*'])).toBe(false);
    expect(
      vulnerable('CVE-2019-19781', [
        'cpe:/o:citrix:application_delivery_controller_firmware:13.1',
        appliance,
      ]),
    ).toBe(false);
  });

  it('CVE-2017-7269: IIS 6.0 on Windows Server 2003 R2', () => {
    const iis = 'cpe:/a:microsoft:internet_information_services:6.0';
    expect(check('CVE-2017-7269', [iis, 'cpe:/o:microsoft:windows_server_2003:r2'])).toMatchObject({
      vulnerable: true,
      platformAssumed: false,
    });
    expect(check('CVE-2017-7269', iis)).toMatchObject({ vulnerable: true, platformAssumed: true });
    expect(vulnerable('CVE-2017-7269', [iis, 'cpe:/o:microsoft:windows_server_2008:r2'])).toBe(false);
    expect(vulnerable('CVE-2017-7269', 'cpe:/a:microsoft:internet_information_services:7.5')).toBe(false);
  });

  it('CVE-2022-22965: an application platform (JDK ≥ 9) counts only when that product is known', () => {
    const spring = { vendor: 'vmware', product: 'spring_framework', version: '5.3.17' };
    expect(check('CVE-2022-22965', spring)).toMatchObject({ vulnerable: true, platformAssumed: true });
    expect(check('CVE-2022-22965', [spring, 'cpe:/a:oracle:jdk:11.0.2'])).toMatchObject({
      vulnerable: true,
      platformAssumed: false,
    });
    expect(vulnerable('CVE-2022-22965', [spring, 'cpe:/a:oracle:jdk:1.8.0'])).toBe(false);
    // Another application says nothing about the JDK: still assumed.
    expect(check('CVE-2022-22965', [spring, 'cpe:/a:apache:tomcat:9.0.60'])).toMatchObject({
      vulnerable: true,
      platformAssumed: true,
    });
    expect(vulnerable('CVE-2022-22965', { ...spring, version: '5.3.18' })).toBe(false);
    expect(vulnerable('CVE-2022-22965', { ...spring, version: '5.2.19' })).toBe(true);
  });

  it('CVE-2022-0543: Redis with no version (NA) on Debian/Ubuntu; NA excludes a literal version', () => {
    expect(check('CVE-2022-0543', ['cpe:/a:redis:redis', 'cpe:/o:debian:debian_linux:10.0'])).toMatchObject({
      vulnerable: true,
      platformAssumed: false,
    });
    expect(vulnerable('CVE-2022-0543', ['cpe:/a:redis:redis', 'cpe:/o:debian:debian_linux:12.0'])).toBe(
      false,
    );
    expect(
      vulnerable('CVE-2022-0543', [
        'cpe:2.3:a:redis:redis:-:*:*:*:*:*:*:*',
        'cpe:/o:canonical:ubuntu_linux:20.04',
      ]),
    ).toBe(true);
    // Per NISTIR 7696 NA does not accept a literal: the record names "redis, no version".
    expect(
      vulnerable('CVE-2022-0543', ['cpe:/a:redis:redis:6.0.16', 'cpe:/o:debian:debian_linux:10.0']),
    ).toBe(false);
  });

  it('CVE-2021-41617 lists the hardware node first; order does not matter', () => {
    const firmware = 'cpe:2.3:o:netapp:aff_a250_firmware:-:*:*:*:*:*:*:*';
    expect(check('CVE-2021-41617', [firmware, 'cpe:2.3:h:netapp:aff_a250:-:*:*:*:*:*:*:*'])).toMatchObject({
      vulnerable: true,
      platformAssumed: false,
    });
    expect(vulnerable('CVE-2021-41617', [firmware, 'cpe:2.3:h:netapp:aff_500f:-:*:*:*:*:*:*:*'])).toBe(false);
  });
});

describe('records without configurations', () => {
  it.each(['CVE-2024-38476', 'CVE-2022-23529'])('%s matches nothing', (cveId) => {
    const record = nvd(cveId);
    expect(record.configurations).toBeUndefined();
    const result = check(cveId, [
      cpe23('apache', 'http_server', '2.4.59'),
      'cpe:/a:auth0:jsonwebtoken:8.5.1',
    ]);
    expect(result).toMatchObject({ vulnerable: false, matches: [], configurations: [] });
  });

  it('CVE-2022-23529 is the rejected one', () => {
    expect(nvd('CVE-2022-23529').vulnStatus).toBe('Rejected');
  });
});

function entry(criteria: string, extra: Partial<CpeMatch> = {}): CpeMatch {
  return { criteria, vulnerable: true, ...extra };
}

function evaluate(configurations: Configuration[], inputs: TargetInput | TargetInput[]) {
  const { target } = prepareTarget(inputs);
  return evaluateConfigurations(compileConfigurations(configurations), target);
}

const APP = 'cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*';
const appAt = (version: string) => `cpe:2.3:a:acme:widget:${version}:*:*:*:*:*:*:*`;

describe('operators and negation', () => {
  it('an AND node needs all its entries', () => {
    const configurations: Configuration[] = [
      {
        nodes: [{ operator: 'AND', cpeMatch: [entry(APP), entry('cpe:2.3:a:acme:plugin:*:*:*:*:*:*:*:*')] }],
      },
    ];
    expect(evaluate(configurations, appAt('1.0')).vulnerable).toBe(false);
    const both = evaluate(configurations, [appAt('1.0'), 'cpe:/a:acme:plugin:2']);
    expect(both.vulnerable).toBe(true);
    expect(both.matches).toHaveLength(2);
  });

  it('an OR node needs one entry and reports each that matched', () => {
    const configurations: Configuration[] = [
      {
        nodes: [
          { operator: 'OR', cpeMatch: [entry(appAt('1.0')), entry(APP, { versionEndExcluding: '2.0' })] },
        ],
      },
    ];
    expect(evaluate(configurations, appAt('1.0')).matches).toHaveLength(2);
    expect(evaluate(configurations, appAt('1.5')).matches).toHaveLength(1);
    expect(evaluate(configurations, appAt('2.0')).vulnerable).toBe(false);
  });

  it('a negated node excludes versions and gives no evidence', () => {
    const configurations: Configuration[] = [
      {
        operator: 'AND',
        nodes: [
          { operator: 'OR', cpeMatch: [entry(APP, { versionEndExcluding: '3.0' })] },
          { operator: 'OR', negate: true, cpeMatch: [entry(appAt('1.5')), entry(appAt('1.6'))] },
        ],
      },
    ];
    expect(evaluate(configurations, appAt('1.4')).vulnerable).toBe(true);
    expect(evaluate(configurations, appAt('1.4')).matches.map((m) => m.criteria)).toEqual([APP]);
    expect(evaluate(configurations, appAt('1.5')).vulnerable).toBe(false);
    expect(evaluate(configurations, appAt('1.6')).vulnerable).toBe(false);
    expect(evaluate(configurations, appAt('3.0')).vulnerable).toBe(false);
  });

  it('a negated configuration inverts its truth', () => {
    const inner = {
      operator: 'AND' as const,
      nodes: [
        { operator: 'OR' as const, cpeMatch: [entry(APP)] },
        { operator: 'OR' as const, cpeMatch: [entry('cpe:2.3:a:acme:plugin:*:*:*:*:*:*:*:*')] },
      ],
    };
    expect(evaluate([inner], appAt('1.0')).vulnerable).toBe(false);
    expect(evaluate([{ ...inner, negate: true }], appAt('1.0')).vulnerable).toBe(true);
    expect(evaluate([{ ...inner, negate: true }], [appAt('1.0'), 'cpe:/a:acme:plugin:1']).vulnerable).toBe(
      false,
    );
  });

  it('configurations are ORed; the result lists those that applied', () => {
    const configurations: Configuration[] = [
      { nodes: [{ operator: 'OR', cpeMatch: [entry('cpe:2.3:a:other:thing:*:*:*:*:*:*:*:*')] }] },
      { nodes: [{ operator: 'OR', cpeMatch: [entry(APP)] }] },
    ];
    expect(evaluate(configurations, appAt('1.0')).configurations).toEqual([1]);
  });

  it('entries with vulnerable: false alone never make anything vulnerable', () => {
    const configurations: Configuration[] = [
      { nodes: [{ operator: 'OR', cpeMatch: [entry(APP, { vulnerable: false })] }] },
    ];
    expect(evaluate(configurations, appAt('1.0')).vulnerable).toBe(false);
  });

  it('is assumed only when every vulnerable configuration needed the assumption', () => {
    const configurations: Configuration[] = [
      {
        operator: 'AND',
        nodes: [
          { operator: 'OR', cpeMatch: [entry(APP)] },
          { operator: 'OR', cpeMatch: [entry('cpe:2.3:o:acme:os:*:*:*:*:*:*:*:*', { vulnerable: false })] },
        ],
      },
      { nodes: [{ operator: 'OR', cpeMatch: [entry(appAt('1.0'))] }] },
    ];
    expect(evaluate(configurations, appAt('1.0'))).toMatchObject({
      vulnerable: true,
      platformAssumed: false,
    });
    expect(evaluate(configurations, appAt('2.0'))).toMatchObject({ vulnerable: true, platformAssumed: true });
  });
});

describe('bad input does not throw', () => {
  it('treats unreadable criteria and garbage ranges as never matching', () => {
    const configurations = [
      {
        nodes: [
          {
            operator: 'OR',
            cpeMatch: [
              entry('not a cpe'),
              entry(APP, { versionEndExcluding: '' }),
              entry(APP, { versionStartIncluding: 42 as unknown as string }),
              null as unknown as CpeMatch,
              entry(42 as unknown as string),
            ],
          },
          null,
          { operator: 'OR' },
        ],
      },
      null,
      {},
    ] as unknown as Configuration[];
    expect(evaluate(configurations, appAt('1.0')).vulnerable).toBe(false);
    expect(matchConfigurations('nonsense' as unknown as Configuration[], appAt('1.0')).vulnerable).toBe(
      false,
    );
  });

  it('reports malformed inputs and keeps the readable ones', () => {
    const { target, errors } = prepareTarget([
      'cpe:2.3:a:broken',
      appAt('1.0'),
      { product: '' },
      42 as unknown as TargetInput,
      { vendor: 'acme', product: 'widget', version: 7 as unknown as string },
    ]);
    expect(target.cpes.map((t) => t.text)).toEqual([appAt('1.0'), 'cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*']);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toContain('11 attributes');
  });

  it('an empty or missing version matches only criteria without a version', () => {
    const configurations: Configuration[] = [
      {
        nodes: [
          { operator: 'OR', cpeMatch: [entry(APP, { versionEndExcluding: '2.0' }), entry(appAt('1.0'))] },
        ],
      },
    ];
    expect(evaluate(configurations, { vendor: 'acme', product: 'widget', version: '' }).vulnerable).toBe(
      false,
    );
    expect(
      evaluate([{ nodes: [{ operator: 'OR', cpeMatch: [entry(APP)] }] }], { product: 'widget' }).vulnerable,
    ).toBe(true);
  });
});

describe('entries', () => {
  const cpe = (text: string) => {
    const parsed = parseCpe(text);
    if (!parsed.ok) throw new Error(parsed.error);
    return targetCpe(parsed.cpe);
  };

  it('ignores range fields beside an exact criteria version', () => {
    const exact = compileEntry(entry(appAt('1.0'), { versionEndExcluding: '5.0' }));
    expect(entryMatchesCpe(exact, cpe(appAt('1.0')))).toBe(true);
    expect(entryMatchesCpe(exact, cpe(appAt('2.0')))).toBe(false);
  });

  it('compares exact versions with the version comparator', () => {
    const exact = compileEntry(entry(appAt('2.4')));
    expect(entryMatchesCpe(exact, cpe(appAt('2.4.0')))).toBe(true);
    expect(entryMatchesCpe(exact, cpe(appAt('v2.4')))).toBe(true);
    expect(entryMatchesCpe(exact, cpe(appAt('2.4.1')))).toBe(false);
  });

  it('accepts Tomcat milestone names whichever way they are written', () => {
    const milestone = compileEntry(entry('cpe:2.3:a:apache:tomcat:9.0.0:milestone1:*:*:*:*:*:*'));
    expect(entryMatchesCpe(milestone, cpe('cpe:/a:apache:tomcat:9.0.0.M1'))).toBe(true);
    expect(entryMatchesCpe(milestone, cpe('cpe:/a:apache:tomcat:9.0.0-M1'))).toBe(true);
    expect(entryMatchesCpe(milestone, cpe('cpe:/a:apache:tomcat:9.0.0.M2'))).toBe(false);
  });

  it('keeps OpenSSL letters in the version', () => {
    const letter = compileEntry(entry('cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*'));
    expect(entryMatchesCpe(letter, cpe('cpe:/a:openssl:openssl:1.1.1k'))).toBe(true);
    expect(entryMatchesCpe(letter, cpe('cpe:2.3:a:openssl:openssl:1.1.1:k:*:*:*:*:*:*'))).toBe(true);
    expect(entryMatchesCpe(letter, cpe('cpe:/a:openssl:openssl:1.1.1'))).toBe(false);
    const release = compileEntry(entry('cpe:2.3:a:openssl:openssl:1.1.1:*:*:*:*:*:*:*'));
    expect(entryMatchesCpe(release, cpe('cpe:/a:openssl:openssl:1.1.1k'))).toBe(false);
  });

  it('supports a wildcard inside the criteria version', () => {
    const wildcard = compileEntry(entry('cpe:2.3:a:acme:widget:2.4.*:*:*:*:*:*:*:*'));
    expect(entryMatchesCpe(wildcard, cpe(appAt('2.4.49')))).toBe(true);
    expect(entryMatchesCpe(wildcard, cpe(appAt('2.5.0')))).toBe(false);
  });

  it('keeps matchCriteriaIds unless asked not to', () => {
    const withId = entry(appAt('1.0'), { matchCriteriaId: 'ID-1' });
    expect(compileEntry(withId).matchCriteriaId).toBe('ID-1');
    expect(
      compileConfigurations([{ nodes: [{ operator: 'OR', cpeMatch: [withId] }] }])[0]?.nodes[0]?.entries[0]
        ?.matchCriteriaId,
    ).toBe('ID-1');
  });
});
