import type { Readable } from 'node:stream';
import { ReportError } from '../../parsing/report-error.js';
import {
  child,
  children,
  childText,
  type XmlAncestor,
  type XmlElement,
  xmlElements,
} from '../../parsing/xml.js';
import type { ZapAlert, ZapInstance, ZapSite } from './alert.js';

function instanceOf(element: XmlElement): ZapInstance {
  const text = (name: string) => childText(element, name);
  return {
    id: text('id'),
    uri: text('uri'),
    method: text('method'),
    param: text('param'),
    attack: text('attack'),
    evidence: text('evidence'),
    otherinfo: text('otherinfo'),
    // The "xml-plus" report adds the messages.
    requestHeader: text('requestheader'),
    requestBody: text('requestbody'),
    responseHeader: text('responseheader'),
    responseBody: text('responsebody'),
  };
}

function alertOf(item: XmlElement): ZapAlert {
  const text = (name: string) => childText(item, name);
  const listed = children(child(item, 'instances') ?? item, 'instance');
  // Reports before ZAP 2.5 put one instance's fields on the alert item itself.
  const instances = listed.length > 0 ? listed : text('uri') ? [item] : [];
  return {
    pluginid: text('pluginid'),
    alertRef: text('alertRef'),
    alert: text('alert'),
    name: text('name'),
    riskcode: text('riskcode'),
    confidence: text('confidence'),
    riskdesc: text('riskdesc'),
    desc: text('desc'),
    solution: text('solution'),
    otherinfo: text('otherinfo'),
    reference: text('reference'),
    cweid: text('cweid'),
    instances: instances.map(instanceOf),
  };
}

function siteOf(site: XmlAncestor | undefined): ZapSite {
  const { name, host, port, ssl } = site?.attributes ?? {};
  return { name, host, port, ssl };
}

/** The alerts of a ZAP XML report (`OWASPZAPReport > site > alerts > alertitem`) with their site. */
export async function* xmlAlerts(input: Readable): AsyncGenerator<{ site: ZapSite; alert: ZapAlert }> {
  const pick = (name: string, ancestors: readonly XmlAncestor[]) => {
    if (ancestors.length === 0 && name !== 'OWASPZAPReport')
      throw new ReportError(`Not a ZAP XML report: the root element is <${name}>, not <OWASPZAPReport>.`);
    return name === 'alertitem' && ancestors.length === 3 && ancestors[1]!.name === 'site';
  };
  for await (const { element, ancestors } of xmlElements(input, pick))
    yield { site: siteOf(ancestors[1]), alert: alertOf(element) };
}
