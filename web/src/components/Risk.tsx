import { Badge, RingProgress, Text, Tooltip, VisuallyHidden } from '@mantine/core';
import { IconFlame } from '../icons';
import { Day } from './Badges';

/** The colour of a risk score (0..100), in the same bands as the severities' colours. */
export function riskColor(score: number): string {
  if (score >= 90) return 'red';
  if (score >= 70) return 'orange';
  if (score >= 40) return 'yellow';
  if (score > 0) return 'blue';
  return 'gray';
}

/** A risk score as a ring filled to its value, the number inside; read out as "Risk 82 of 100". */
export function RiskRing({ score, size = 44 }: { score: number; size?: number }) {
  const rounded = Math.round(score);
  const large = size >= 60;
  return (
    <RingProgress
      size={size}
      thickness={large ? 6 : 4}
      roundCaps
      sections={[{ value: Math.min(100, Math.max(0, score)), color: riskColor(score) }]}
      label={
        <Text ta="center" fw={700} fz={large ? 'lg' : 'sm'} style={{ fontVariantNumeric: 'tabular-nums' }}>
          {rounded}
        </Text>
      }
      role="img"
      aria-label={`Risk ${rounded} of 100`}
      style={{ flexShrink: 0 }}
    />
  );
}

/**
 * An EPSS probability (0..1) as a percentage: "94.4 %", "0.04 %". Cut, not rounded: 0.99992 is
 * "99.9 %", never a certain-sounding "100 %".
 */
export function formatProbability(score: number): string {
  const digits = score < 0.01 ? 2 : 1;
  const factor = 10 ** digits;
  const percent = Math.floor(score * 100 * factor) / factor;
  return `${percent.toLocaleString(undefined, { maximumFractionDigits: digits })} %`;
}

/**
 * An EPSS percentile (0..1) as the share of CVEs ranked as high or higher: 0.999 is "top 0.1 %".
 * Never "top 0 %": the riskiest CVE is still one of those ranked.
 */
export function formatTopShare(percentile: number): string {
  const top = Math.max(0.01, (1 - percentile) * 100);
  const digits = top < 1 ? 2 : top < 10 ? 1 : 0;
  return `top ${top.toLocaleString(undefined, { maximumFractionDigits: digits })} %`;
}

/**
 * An EPSS percentile (0..1) on a 0–100 scale, cut rather than rounded so that the highest ranks
 * stay below 100: 0.99986 is "99.98".
 */
export function formatPercentile(percentile: number): string {
  const digits = percentile >= 0.99 ? 2 : 1;
  const factor = 10 ** digits;
  return (Math.floor(percentile * 100 * factor) / factor).toFixed(digits);
}

/**
 * CISA lists the CVE as exploited in the wild. `compact` for tables ("KEV"); CISA's due date (a
 * deadline for US federal agencies, not the finding's own) shows in the tooltip and is read out
 * with the badge.
 */
export function KevBadge({ dueDate, compact = false }: { dueDate?: string | null; compact?: boolean }) {
  return (
    <Tooltip
      label={
        <>
          Known exploited (CISA KEV)
          {dueDate && (
            <>
              {"; CISA's federal due date "}
              <Day value={dueDate} />
            </>
          )}
        </>
      }
    >
      <Badge
        color="red"
        variant={compact ? 'light' : 'filled'}
        leftSection={<IconFlame size={12} aria-hidden />}
        styles={{ root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible' } }}
      >
        {compact ? (
          <>
            KEV<VisuallyHidden>: known exploited</VisuallyHidden>
          </>
        ) : (
          'Known exploited'
        )}
        {dueDate && (
          <VisuallyHidden>
            , CISA's due date <Day value={dueDate} />
          </VisuallyHidden>
        )}
      </Badge>
    </Tooltip>
  );
}
