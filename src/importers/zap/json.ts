import type { Readable } from 'node:stream';
import { type JsonPath, jsonValues } from '../../parsing/json.js';
import { ReportError } from '../../parsing/report-error.js';
import { shapeCheck } from '../../parsing/shape.js';
import type { ZapAlert, ZapInstance, ZapSite } from './alert.js';

/**
 * ZAP's "traditional-json" report (and "traditional-json-plus"):
 * `{ "@version", "site": [ { "@name", "@host", "@port", "@ssl", "alerts": [ { …, "instances": [ … ] } ] } ] }`.
 * ZAP writes a site's scalars before its alerts, so each alert is read with its site known; one
 * alert is held in memory at a time.
 */

/** Where the reader goes through the report: each must be of its kind, or the report fails there. */
const ZAP_SHAPE = shapeCheck('a ZAP JSON report', [
  ['site', 'object|array?', 'a list of sites'],
  ['site[]', 'object', 'a site object'],
]);

const SITE_KEYS: Record<string, keyof ZapSite> = {
  '@name': 'name',
  '@host': 'host',
  '@port': 'port',
  '@ssl': 'ssl',
};

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A scalar as text (ZAP writes strings; other writers use numbers and booleans). */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function shapeError(detail: string): ReportError {
  return new ReportError(`Not a ZAP JSON report: ${detail}`);
}

/**
 * Where a path is inside `site`: the site's index and the rest of the path. Old reports wrote a
 * single site as an object instead of a list of one; it is site 0.
 */
function sitePath(path: JsonPath): { index: number; rest: JsonPath } {
  return typeof path[1] === 'number'
    ? { index: path[1], rest: path.slice(2) }
    : { index: 0, rest: path.slice(1) };
}

function instanceOf(value: unknown): ZapInstance {
  const o = isObject(value) ? value : {};
  return {
    id: text(o.id),
    uri: text(o.uri),
    method: text(o.method),
    param: text(o.param),
    attack: text(o.attack),
    evidence: text(o.evidence),
    otherinfo: text(o.otherinfo),
    requestHeader: text(o['request-header']),
    requestBody: text(o['request-body']),
    responseHeader: text(o['response-header']),
    responseBody: text(o['response-body']),
  };
}

function alertOf(o: JsonObject): ZapAlert {
  const listed = Array.isArray(o.instances) ? o.instances : isObject(o.instances) ? [o.instances] : [];
  return {
    pluginid: text(o.pluginid),
    alertRef: text(o.alertRef),
    alert: text(o.alert),
    name: text(o.name),
    riskcode: text(o.riskcode),
    confidence: text(o.confidence),
    riskdesc: text(o.riskdesc),
    desc: text(o.desc),
    solution: text(o.solution),
    otherinfo: text(o.otherinfo),
    reference: text(o.reference),
    cweid: text(o.cweid),
    instances: listed.map(instanceOf),
  };
}

/** The alerts of a ZAP JSON report with their site; a report of another shape fails clearly. */
export async function* jsonAlerts(input: Readable): AsyncGenerator<{ site: ZapSite; alert: ZapAlert }> {
  const sites = new Map<number, ZapSite>();
  let sawSite = false;
  const pick = (path: JsonPath): boolean => {
    if (typeof path[0] === 'number') throw shapeError('the top level is a list, not an object with "site".');
    if (path[0] !== 'site') return false;
    sawSite = true;
    if (path.length === 1) return false;
    const { rest } = sitePath(path);
    if (rest.length === 1 && typeof rest[0] === 'string') return rest[0] in SITE_KEYS;
    if (rest[0] !== 'alerts' || rest.length !== 2) return false;
    if (typeof rest[1] !== 'number') throw shapeError('a site\'s "alerts" is not a list.');
    return true;
  };

  for await (const { path, value } of jsonValues(input, pick, { onValue: ZAP_SHAPE })) {
    const { index, rest } = sitePath(path);
    const site = sites.get(index) ?? {};
    sites.set(index, site);
    if (rest[0] !== 'alerts') {
      site[SITE_KEYS[rest[0] as string]!] = text(value);
      continue;
    }
    if (!isObject(value)) throw shapeError(`alert ${String(rest[1])} of site ${index} is not an object.`);
    yield { site, alert: alertOf(value) };
  }
  if (!sawSite) throw shapeError('it has no "site" list at the top level.');
}
