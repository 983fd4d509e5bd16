import { Card, SimpleGrid, Stack } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useParams } from 'react-router';
import { useNodeOptions, useTemplateOptions } from '../../api/scans';
import { DetailPage } from '../../components/DetailPage';
import { Fact } from '../../components/Fact';
import { ScanFormModal } from './ScanFormModal';
import { ScanHeader } from './ScanHeader';
import { labelOf, ScheduleText } from './scanText';
import { type ListedScan, type ScanFact, type ScanKindView, type ScanViewProps, wordsOf } from './view';
import { SCAN_VIEWS, type ScanViewName } from './views';

/** One scan of a kind: its header, its facts, and the kind's runs and results. */
export default function ScanPage({ kind }: { kind: ScanViewName }) {
  return SCAN_VIEWS[kind]((view) => <KindScanPage key={kind} view={view} />);
}

function KindScanPage<S extends ListedScan, B, F extends string>({ view }: { view: ScanKindView<S, B, F> }) {
  const { id = '' } = useParams();
  const scan = view.hooks.useOne(id);
  return (
    <DetailPage
      query={scan}
      title={scan.data?.Name ?? wordsOf(view.labels).Noun}
      back={{ to: view.path, label: `All ${view.labels.noun}s` }}
    >
      {(data) => <ScanView view={view} scan={data} />}
    </DetailPage>
  );
}

function ScanView<S extends ListedScan, B, F extends string>({ view, scan }: ScanViewProps<S, B, F>) {
  const [editOpened, edit] = useDisclosure(false);
  return (
    <Stack gap="lg">
      <ScanHeader view={view} scan={scan} onEdit={edit.open} />
      <view.Body scan={scan} facts={<ScanFacts view={view} scan={scan} />} />
      <ScanFormModal view={view} opened={editOpened} onClose={edit.close} scan={scan} />
    </Stack>
  );
}

/** The scan's settings as facts: the kind's first ones, template, node, schedule, the kind's last. */
function ScanFacts<S extends ListedScan, B, F extends string>({ view, scan }: ScanViewProps<S, B, F>) {
  const templates = useTemplateOptions(view.kind).data;
  const nodes = useNodeOptions(view.kind).data;
  const { first, last = [] } = view.facts(scan);
  const facts: ScanFact[] = [
    ...first,
    { label: 'Template', value: labelOf(templates, scan.TemplateId) },
    { label: 'Scan node', value: labelOf(nodes, scan.ScanNodeId) ?? wordsOf(view.labels).anyNode },
    { label: 'Schedule', value: <ScheduleText schedule={scan.Schedule} next={scan.NextRunAt} /> },
    ...last,
  ];
  return (
    <Card withBorder radius="md">
      <SimpleGrid cols={{ base: 1, md: view.factColumns }} spacing="xs" component="dl" m={0}>
        {facts.map((f) => (
          <Fact key={f.label} label={f.label}>
            {f.code ? (
              <span style={{ fontFamily: 'var(--mantine-font-family-monospace)' }}>{f.value}</span>
            ) : (
              f.value
            )}
          </Fact>
        ))}
      </SimpleGrid>
    </Card>
  );
}
