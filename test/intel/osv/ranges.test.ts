import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ecosystemBase, normalizePackageName, packageKey } from '../../../src/intel/osv/package-key.js';
import {
  affectedBy,
  compareEcosystemVersions,
  evaluateRange,
  type PackageVersion,
  packageOfPurl,
} from '../../../src/intel/osv/ranges.js';
import type { OsvAffected, OsvRange } from '../../../src/intel/types.js';

const OSV_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'intel', 'osv');

interface RawAffected {
  package: { ecosystem: string; name: string; purl?: string };
  ranges?: OsvRange[];
  versions?: string[];
}

/** An advisory file's `affected`, in the shape the feed readers produce. */
function affectedOf(id: string): OsvAffected[] {
  const raw = JSON.parse(readFileSync(join(OSV_DIR, `${id}.json`), 'utf8')) as { affected: RawAffected[] };
  return raw.affected.map((a) => ({
    ecosystem: a.package.ecosystem,
    name: a.package.name,
    ...(a.package.purl ? { purl: a.package.purl } : {}),
    ranges: a.ranges ?? [],
    versions: a.versions ?? [],
  }));
}

function isAffected(id: string, pkg: PackageVersion | string): boolean {
  return affectedBy(affectedOf(id), pkg).affected;
}

const npm = (name: string, version: string) => ({ ecosystem: 'npm', name, version });
const pypi = (name: string, version: string) => ({ ecosystem: 'PyPI', name, version });

describe('lodash command injection, GHSA-35jh-r3h4-6jhm (CVE-2021-23337)', () => {
  const id = 'GHSA-35jh-r3h4-6jhm';

  it('affects every lodash before 4.17.21', () => {
    expect(affectedBy(affectedOf(id), npm('lodash', '4.17.20'))).toEqual({
      affected: true,
      match: {
        affectedIndex: 0,
        ecosystem: 'npm',
        name: 'lodash',
        via: 'range',
        rangeIndex: 0,
        rangeType: 'ECOSYSTEM',
        introduced: '0',
        fixed: '4.17.21',
      },
      notEvaluable: [],
    });
    expect(isAffected(id, npm('lodash', '0.1.0'))).toBe(true);
    expect(isAffected(id, npm('lodash', '4.17.21-beta.1'))).toBe(true);
  });

  it('does not affect 4.17.21 and later', () => {
    expect(isAffected(id, npm('lodash', '4.17.21'))).toBe(false);
    expect(isAffected(id, npm('lodash', '4.17.22'))).toBe(false);
    expect(isAffected(id, npm('lodash', '5.0.0'))).toBe(false);
  });

  it('names lodash-es too, and no other package', () => {
    expect(affectedBy(affectedOf(id), npm('lodash-es', '4.17.20')).match?.affectedIndex).toBe(1);
    expect(isAffected(id, npm('lodash.template', '4.5.0'))).toBe(false);
    expect(isAffected(id, npm('Lodash', '4.17.20'))).toBe(false);
    expect(isAffected(id, pypi('lodash', '4.17.20'))).toBe(false);
  });

  it('reads a purl', () => {
    expect(isAffected(id, 'pkg:npm/lodash@4.17.20')).toBe(true);
    expect(isAffected(id, 'pkg:npm/lodash@4.17.21')).toBe(false);
  });
});

describe('minimist prototype pollution, GHSA-xvch-5gv4-984h (CVE-2021-44906): two ranges', () => {
  const id = 'GHSA-xvch-5gv4-984h';

  it.each([
    ['0.0.1', true],
    ['0.2.3', true],
    ['0.2.4', false],
    ['0.9.9', false],
    ['1.0.0', true],
    ['1.2.5', true],
    ['1.2.6', false],
    ['1.2.8', false],
  ])('minimist %s affected: %s', (version, affected) => {
    expect(isAffected(id, npm('minimist', version))).toBe(affected);
  });

  it('says which range', () => {
    expect(affectedBy(affectedOf(id), npm('minimist', '0.2.1')).match).toMatchObject({
      affectedIndex: 1,
      introduced: '0',
      fixed: '0.2.4',
    });
    expect(affectedBy(affectedOf(id), npm('minimist', '1.2.0')).match).toMatchObject({
      affectedIndex: 0,
      introduced: '1.0.0',
      fixed: '1.2.6',
    });
  });
});

describe('semver ReDoS, GHSA-c2qf-rxjj-qqgw: SemVer precedence with pre-releases', () => {
  const id = 'GHSA-c2qf-rxjj-qqgw';

  it.each([
    ['5.7.1', true],
    ['5.7.2', false],
    ['6.0.0', true],
    ['6.3.0', true],
    ['6.3.1', false],
    ['7.0.0-rc.1', false],
    ['7.0.0', true],
    ['7.5.1', true],
    ['7.5.2-alpha.1', true],
    ['7.5.2', false],
    ['v7.5.1', true],
  ])('semver %s affected: %s', (version, affected) => {
    expect(isAffected(id, npm('semver', version))).toBe(affected);
  });
});

describe('requests Proxy-Authorization leak, CVE-2023-32681 (PyPI)', () => {
  it.each([
    ['2.2.1', false],
    ['2.3.0', true],
    ['2.30.0', true],
    ['2.31.0rc1', true],
    ['2.31.0', false],
    ['2.31.0.post1', false],
    ['2.32.3', false],
  ])('GHSA-j8r2-6x86-q33q: requests %s affected: %s', (version, affected) => {
    expect(isAffected('GHSA-j8r2-6x86-q33q', pypi('requests', version))).toBe(affected);
  });

  it('PYSEC-2023-74: the GIT range is not evaluable, the ECOSYSTEM range decides', () => {
    const result = affectedBy(affectedOf('PYSEC-2023-74'), pypi('requests', '2.30.0'));
    expect(result.affected).toBe(true);
    expect(result.match).toMatchObject({ via: 'range', rangeIndex: 1, introduced: '2.3.0', fixed: '2.31.0' });
    expect(result.notEvaluable).toEqual([
      { affectedIndex: 0, rangeIndex: 0, reason: 'GIT ranges name commits, not versions' },
    ]);
    expect(isAffected('PYSEC-2023-74', pypi('requests', '2.31.0'))).toBe(false);
    expect(isAffected('PYSEC-2023-74', pypi('requests', '2.2.1'))).toBe(false);
  });

  it('normalises PyPI names (PEP 503) and reads PyPI purls', () => {
    expect(isAffected('PYSEC-2023-74', pypi('Requests', '2.30.0'))).toBe(true);
    expect(isAffected('PYSEC-2023-74', 'pkg:pypi/requests@2.30.0')).toBe(true);
    expect(isAffected('PYSEC-2023-74', 'pkg:pypi/requests@2.31.0')).toBe(false);
  });

  it('PYSEC-2018-28 (CVE-2018-18074): everything before 2.20.0', () => {
    expect(isAffected('PYSEC-2018-28', pypi('requests', '2.19.1'))).toBe(true);
    expect(isAffected('PYSEC-2018-28', pypi('requests', '2.20.0'))).toBe(false);
  });
});

describe('PYSEC ranges with several intervals and explicit versions', () => {
  it('PYSEC-2019-16 (django): [0, 1.11.27) and [2.2, 2.2.9)', () => {
    const cases: [string, boolean][] = [
      ['1.11.26', true],
      ['1.11.27', false],
      ['2.2', true],
      ['2.2.8', true],
      ['2.2.9', false],
      ['3.0', false],
    ];
    for (const [version, affected] of cases) {
      expect(isAffected('PYSEC-2019-16', pypi('Django', version)), version).toBe(affected);
    }
  });

  it('PYSEC-2023-192 (urllib3): events out of order are sorted first', () => {
    const cases: [string, boolean][] = [
      ['1.26.16', true],
      ['1.26.17', false],
      ['1.26.18', false],
      ['2.0.0', true],
      ['2.0.5', true],
      ['2.0.6', false],
    ];
    for (const [version, affected] of cases) {
      expect(isAffected('PYSEC-2023-192', pypi('urllib3', version)), version).toBe(affected);
    }
  });

  it('PYSEC-2021-142 (PyYAML): PEP 440 betas before 5.4', () => {
    expect(isAffected('PYSEC-2021-142', pypi('PyYAML', '5.4b2'))).toBe(true);
    expect(isAffected('PYSEC-2021-142', pypi('pyyaml', '5.3.1'))).toBe(true);
    expect(isAffected('PYSEC-2021-142', pypi('pyyaml', '5.4'))).toBe(false);
    expect(isAffected('PYSEC-2021-142', pypi('pyyaml', '6.0.1'))).toBe(false);
  });

  it('falls back to the explicit versions list when no range holds', () => {
    const [entry] = affectedOf('PYSEC-2021-142');
    const listOnly: OsvAffected = { ...entry!, ranges: [] };
    expect(affectedBy([listOnly], pypi('pyyaml', '5.3.1')).match).toMatchObject({ via: 'versions' });
    expect(affectedBy([listOnly], pypi('pyyaml', '5.3.1.0')).affected).toBe(true);
    expect(affectedBy([listOnly], pypi('pyyaml', '5.4')).affected).toBe(false);
  });
});

describe('Spring4Shell, GHSA-36p3-wjmg-h94x (Maven, generic ordering)', () => {
  const id = 'GHSA-36p3-wjmg-h94x';

  it.each([
    ['5.2.19.RELEASE', true],
    ['5.2.20.RELEASE', false],
    ['5.2.20', false],
    ['5.3.0', true],
    ['5.3.0-RC1', false],
    ['5.3.17', true],
    ['5.3.18', false],
    ['6.0.0', false],
  ])('spring-beans %s affected: %s', (version, affected) => {
    expect(isAffected(id, { ecosystem: 'Maven', name: 'org.springframework:spring-beans', version })).toBe(
      affected,
    );
  });

  it('reads Maven purls as group:artifact', () => {
    expect(isAffected(id, 'pkg:maven/org.springframework/spring-webmvc@5.3.17')).toBe(true);
    expect(isAffected(id, 'pkg:maven/org.springframework.boot/spring-boot-starter-web@2.6.6')).toBe(false);
    expect(isAffected(id, 'pkg:maven/org.springframework.boot/spring-boot-starter-web@2.6.5')).toBe(true);
  });
});

describe('other GHSA fixtures, just inside and just outside', () => {
  it.each([
    ['GHSA-3h5v-q93c-6h6q', npm('ws', '8.17.0'), true],
    ['GHSA-3h5v-q93c-6h6q', npm('ws', '8.17.1'), false],
    ['GHSA-3h5v-q93c-6h6q', npm('ws', '2.0.9'), false],
    ['GHSA-3h5v-q93c-6h6q', npm('ws', '5.2.3'), true],
    ['GHSA-h5c8-rqwp-cp95', pypi('Jinja2', '3.1.2'), true],
    ['GHSA-h5c8-rqwp-cp95', pypi('jinja2', '3.1.3'), false],
    ['GHSA-m2qf-hxjv-5gpq', pypi('flask', '2.2.4'), true],
    ['GHSA-m2qf-hxjv-5gpq', pypi('flask', '2.2.5'), false],
    ['GHSA-m2qf-hxjv-5gpq', pypi('flask', '2.3.1'), true],
    ['GHSA-m2qf-hxjv-5gpq', pypi('flask', '2.3.2'), false],
    ['GHSA-27h2-hvpr-p74q', npm('jsonwebtoken', '8.5.1'), true],
    ['GHSA-27h2-hvpr-p74q', npm('jsonwebtoken', '9.0.0'), false],
    ['GHSA-wf5p-g6vw-rhxx', npm('axios', '0.8.0'), false],
    ['GHSA-wf5p-g6vw-rhxx', npm('axios', '0.8.1'), true],
    ['GHSA-wf5p-g6vw-rhxx', npm('axios', '1.5.1'), true],
    ['GHSA-wf5p-g6vw-rhxx', npm('axios', '1.6.0'), false],
  ])('%s %j affected: %s', (id, pkg, affected) => {
    expect(isAffected(id, pkg)).toBe(affected);
  });
});

const range = (events: OsvRange['events'], type: OsvRange['type'] = 'ECOSYSTEM'): OsvRange => ({
  type,
  events,
});
const widget = (ranges: OsvRange[], versions: string[] = []): OsvAffected[] => [
  { ecosystem: 'npm', name: 'widget', ranges, versions },
];

describe('events', () => {
  it('last_affected includes its version', () => {
    const affected = widget([range([{ introduced: '1.0.0' }, { last_affected: '1.4.0' }])]);
    expect(affectedBy(affected, npm('widget', '1.4.0')).match).toMatchObject({ lastAffected: '1.4.0' });
    expect(affectedBy(affected, npm('widget', '1.4.1')).affected).toBe(false);
    expect(affectedBy(affected, npm('widget', '0.9.0')).affected).toBe(false);
  });

  it('an introduced without an end stays open', () => {
    const affected = widget([range([{ introduced: '2.0.0' }])]);
    expect(affectedBy(affected, npm('widget', '99.0.0')).affected).toBe(true);
    expect(affectedBy(affected, npm('widget', '1.9.9')).affected).toBe(false);
  });

  it('limit caps the range', () => {
    const capped = widget([range([{ introduced: '0' }, { limit: '2.0.0' }])]);
    expect(affectedBy(capped, npm('widget', '1.9.9')).affected).toBe(true);
    expect(affectedBy(capped, npm('widget', '2.0.0')).affected).toBe(false);
    const uncapped = widget([range([{ introduced: '0' }, { limit: '*' }])]);
    expect(affectedBy(uncapped, npm('widget', '9.0.0')).affected).toBe(true);
  });

  it('SEMVER ranges use SemVer whatever the ecosystem', () => {
    const affected: OsvAffected[] = [
      {
        ecosystem: 'Go',
        name: 'github.com/acme/widget',
        ranges: [range([{ introduced: '0' }, { fixed: '1.2.0' }], 'SEMVER')],
        versions: [],
      },
    ];
    expect(
      affectedBy(affected, { ecosystem: 'Go', name: 'github.com/acme/widget', version: 'v1.1.9' }).affected,
    ).toBe(true);
    expect(affectedBy(affected, 'pkg:golang/github.com/acme/widget@v1.2.0').affected).toBe(false);
    expect(affectedBy(affected, 'pkg:golang/github.com/acme/widget@v1.2.0-rc.1').affected).toBe(true);
  });

  it('matches a release-suffixed ecosystem (Debian:11) from its base name', () => {
    const affected: OsvAffected[] = [
      {
        ecosystem: 'Debian:11',
        name: 'openssl',
        ranges: [range([{ introduced: '0' }, { fixed: '1.1.1n-0+deb11u4' }])],
        versions: [],
      },
    ];
    expect(
      affectedBy(affected, { ecosystem: 'Debian', name: 'openssl', version: '1.1.1n-0+deb11u3' }).affected,
    ).toBe(true);
    expect(
      affectedBy(affected, { ecosystem: 'Debian:11', name: 'openssl', version: '1.1.1k-1' }).affected,
    ).toBe(true);
    expect(
      affectedBy(affected, { ecosystem: 'Debian:12', name: 'openssl', version: '1.1.1k-1' }).affected,
    ).toBe(false);
  });
});

describe('bad input is reported, never thrown', () => {
  it('reports malformed ranges as not evaluable', () => {
    const affected = widget([
      range([]),
      { type: 'ECOSYSTEM' } as unknown as OsvRange,
      range([{ fixed: '1.0.0' }]),
      range([{ introduced: '' }, { fixed: '1.0.0' }]),
      range([{ introduced: 1 as unknown as string }]),
      range([null as unknown as OsvRange['events'][number]]),
      range([{ bogus: '1' } as unknown as OsvRange['events'][number]]),
      { type: 'WHATEVER', events: [{ introduced: '0' }] } as unknown as OsvRange,
      null as unknown as OsvRange,
      range([{ introduced: '0' }, { fixed: '2.0.0' }]),
    ]);
    const result = affectedBy(affected, npm('widget', '1.0.0'));
    expect(result.affected).toBe(true);
    expect(result.match?.rangeIndex).toBe(9);
    expect(result.notEvaluable.map((n) => n.rangeIndex)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('evaluates a single range on its own', () => {
    expect(evaluateRange(range([{ introduced: '1.0' }, { fixed: '2.0' }]), 'PyPI', '1.5')).toEqual({
      evaluable: true,
      interval: { introduced: '1.0', fixed: '2.0' },
    });
    expect(
      evaluateRange(range([{ introduced: '0' }, { fixed: 'abc123' }], 'GIT'), 'PyPI', '1.5'),
    ).toMatchObject({
      evaluable: false,
    });
  });

  it.each([
    [{ ecosystem: 'npm', name: 'lodash', version: '' }, 'needs a version'],
    [{ ecosystem: 'npm', name: '', version: '1.0.0' }, 'needs a name'],
    [{ ecosystem: '', name: 'lodash', version: '1.0.0' }, 'needs an ecosystem'],
    [null, 'must be'],
    ['lodash@4.17.20', 'not a purl'],
    ['pkg:npm/lodash', 'needs a version'],
    ['pkg:npm/lodash@', 'needs a version'],
    ['pkg:unknown/thing@1.0', 'not supported'],
    ['pkg:npm/%E0%A4%A@1.0', 'percent-encoding'],
    ['pkg:npm@1.0', 'type and a name'],
  ])('%j → error', (pkg, message) => {
    const result = affectedBy(affectedOf('GHSA-35jh-r3h4-6jhm'), pkg as PackageVersion);
    expect(result.affected).toBe(false);
    expect(result.error).toContain(message);
  });

  it('tolerates a missing or odd affected list', () => {
    expect(affectedBy(null as unknown as OsvAffected[], npm('lodash', '1.0.0')).affected).toBe(false);
    expect(affectedBy([null as unknown as OsvAffected], npm('lodash', '1.0.0')).affected).toBe(false);
    expect(
      affectedBy([{ ecosystem: 'npm', name: 'lodash' } as unknown as OsvAffected], npm('lodash', '1.0.0'))
        .affected,
    ).toBe(false);
  });
});

describe('purls', () => {
  it.each([
    ['pkg:npm/%40babel/core@7.22.0', { ecosystem: 'npm', name: '@babel/core', version: '7.22.0' }],
    ['pkg:npm/@babel/core@7.22.0', { ecosystem: 'npm', name: '@babel/core', version: '7.22.0' }],
    ['pkg:pypi/Django@4.2.1?foo=bar#sub', { ecosystem: 'PyPI', name: 'Django', version: '4.2.1' }],
    [
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
      { ecosystem: 'Maven', name: 'org.apache.logging.log4j:log4j-core', version: '2.14.1' },
    ],
    [
      'pkg:golang/github.com/gin-gonic/gin@v1.9.0',
      { ecosystem: 'Go', name: 'github.com/gin-gonic/gin', version: 'v1.9.0' },
    ],
    ['pkg:gem/rails@7.0.4', { ecosystem: 'RubyGems', name: 'rails', version: '7.0.4' }],
    ['pkg:cargo/serde@1.0.0', { ecosystem: 'crates.io', name: 'serde', version: '1.0.0' }],
    ['pkg:nuget/Newtonsoft.Json@13.0.1', { ecosystem: 'NuGet', name: 'Newtonsoft.Json', version: '13.0.1' }],
    [
      'pkg:composer/laravel/framework@10.0.0',
      { ecosystem: 'Packagist', name: 'laravel/framework', version: '10.0.0' },
    ],
  ])('%s', (purl, pkg) => {
    expect(packageOfPurl(purl)).toEqual({ ok: true, pkg });
  });
});

describe('package names and keys', () => {
  it('normalises per ecosystem', () => {
    expect(normalizePackageName('PyPI', 'Flask_SQLAlchemy')).toBe('flask-sqlalchemy');
    expect(normalizePackageName('PyPI', 'zope.interface')).toBe('zope-interface');
    expect(normalizePackageName('PyPI', 'a-_.b')).toBe('a-b');
    expect(normalizePackageName('npm', '@Scope/Name')).toBe('@Scope/Name');
    expect(normalizePackageName('NuGet', 'Newtonsoft.Json')).toBe('newtonsoft.json');
    expect(normalizePackageName('Maven', 'org.springframework:spring-beans')).toBe(
      'org.springframework:spring-beans',
    );
  });

  it('keys on the base ecosystem in OSV spelling', () => {
    expect(packageKey('pypi', 'Requests')).toBe('PyPI:requests');
    expect(packageKey('PyPI', 'requests')).toBe('PyPI:requests');
    expect(packageKey('npm', 'lodash')).toBe('npm:lodash');
    expect(packageKey('Debian:11', 'openssl')).toBe('Debian:openssl');
    expect(ecosystemBase('CRATES.IO')).toBe('crates.io');
    expect(ecosystemBase('SomethingNew')).toBe('SomethingNew');
  });
});

describe('ecosystem ordering', () => {
  it('PyPI follows PEP 440', () => {
    const ordered = ['1.0.dev0', '1.0a1', '1.0b2', '1.0rc1', '1.0', '1.0.post1', '1!0.1'];
    for (let i = 1; i < ordered.length; i++) {
      expect(compareEcosystemVersions('PyPI', ordered[i - 1]!, ordered[i]!)).toBeLessThan(0);
    }
    expect(compareEcosystemVersions('PyPI', '2.0', '2.0.0')).toBe(0);
  });

  it('npm follows SemVer, falling back for non-SemVer strings', () => {
    expect(compareEcosystemVersions('npm', '1.0.0-alpha.10', '1.0.0-alpha.9')).toBeGreaterThan(0);
    expect(compareEcosystemVersions('npm', '1.0.0-rc.1', '1.0.0')).toBeLessThan(0);
    expect(compareEcosystemVersions('npm', '1.2', '1.10.0')).toBeLessThan(0);
  });
});

describe('Debian and Ubuntu ranges use dpkg order', () => {
  const affected: OsvAffected[] = [
    {
      ecosystem: 'Ubuntu:22.04:LTS',
      name: 'openssh',
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1:8.9p1-3ubuntu0.10' }] }],
      versions: [],
    },
  ];
  const at = (version: string) =>
    affectedBy(affected, { ecosystem: 'Ubuntu:22.04:LTS', name: 'openssh', version }).affected;

  it('orders revisions numerically (0.6 < 0.10 < 0.13)', () => {
    expect(at('1:8.9p1-3ubuntu0.6')).toBe(true);
    expect(at('1:8.9p1-3ubuntu0.10')).toBe(false);
    expect(at('1:8.9p1-3ubuntu0.13')).toBe(false);
  });

  it('sorts ~ before the end, and an epoch above any version without one', () => {
    expect(compareEcosystemVersions('Ubuntu', '1.1.1-1ubuntu2.1~18.04.15', '1.1.1-1ubuntu2.1')).toBe(-1);
    expect(compareEcosystemVersions('Debian:12', '1:0.1', '2.0')).toBe(1);
    expect(compareEcosystemVersions('Debian', '1.0a', '1.0+b1')).toBe(-1);
  });
});
