// Shapes of the Rampart API (channel `latest`), named for the web app. Property names are
// PascalCase on the wire. Every shape comes from schema.gen.ts, generated from the server's
// OpenAPI document (npm run gen:web-types): a server change shows here as a type error, not as a
// page that silently reads a missing field.
// With `.js`: the server's typecheck (NodeNext) reads this file too, through labels.ts's tests.
import type { components, operations } from './schema.gen.js';

type Operation = keyof operations;
type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/** The JSON answer of an operation (named by its operationId) with a success status. */
export type ResponseOf<
  Op extends Operation,
  Status extends number = 200,
> = Status extends keyof operations[Op]['responses'] ? JsonOf<operations[Op]['responses'][Status]> : never;

/** The JSON body an operation takes. */
export type RequestOf<Op extends Operation> = JsonOf<NonNullable<operations[Op]['requestBody']>>;

/** The query parameters an operation takes. */
export type QueryOf<Op extends Operation> = NonNullable<operations[Op]['parameters']['query']>;

export type Session = ResponseOf<'getSession'>;
export type UserSummary = Session['User'];
export type Organization = Session['Organization'];
export type ServiceStatus = ResponseOf<'getStatus'>;
export type AccountDetails = ResponseOf<'getAccountDetails'>;
export type NotificationPreferences = ResponseOf<'getNotificationPreferences'>;
export type MfaStatus = ResponseOf<'getMfaStatus'>;
export type MfaEnrolment = ResponseOf<'startMfaEnrolment'>;
/** The password was right; the sign-in needs a code, or a factor set up, before any session. */
export type SecondStep = ResponseOf<'signIn', 202>;
export type EnrolledSession = ResponseOf<'signInConfirmEnrolment'>;

export type UserPage = ResponseOf<'listUsers'>;
export type User = UserPage['Items'][number];
export type Role = User['Role'];

/** In increasing order of rights: each role includes those before it. */
export const ROLES: readonly Role[] = ['ReadOnly', 'Analyst', 'Manager', 'Admin'];

export function hasRole(actual: Role, needed: Role): boolean {
  return ROLES.indexOf(actual) >= ROLES.indexOf(needed);
}

export type ApiKeyPage = ResponseOf<'listApiKeys'>;
export type ApiKey = ApiKeyPage['Items'][number];
export type ApiKeyStatus = ApiKey['Status'];
export type CreatedApiKey = ResponseOf<'createApiKey', 201>;

/** RFC 9457 problem document, as the server sends it. */
export type ServerProblem = components['schemas']['Problem'];
/**
 * What an ApiError carries: the server's problem document, or one made in the browser for a
 * failure that has none (no connection, an answer that is not JSON), without `type` or `instance`.
 */
export type Problem = Pick<ServerProblem, 'title' | 'status'> & Partial<ServerProblem>;
export type ProblemFieldError = NonNullable<Problem['errors']>[number];

export type FindingPage = ResponseOf<'listFindings'>;
export type Finding = FindingPage['Items'][number];
export type Severity = Finding['Severity'];
export type FindingState = Finding['State'];
export type FindingLocation = Finding['Location'];
export type FindingDetail = ResponseOf<'getFinding'>;
export type FindingEvent = FindingDetail['Events'][number];
export type FindingSort = NonNullable<QueryOf<'listFindings'>['Sort']>;

/** The findings list's filters (its query without paging and order). */
export type FindingFilter = Omit<QueryOf<'listFindings'>, 'PageSize' | 'Cursor' | 'IncludeTotal' | 'Sort'>;
export type BulkResult = ResponseOf<'bulkChangeFindingState'>;

export type Vulnerability = ResponseOf<'getVulnerability'>;

export type AssetPage = ResponseOf<'listAssets'>;
export type Asset = AssetPage['Items'][number];
export type AssetKind = Asset['Kind'];
export type AssetDetail = ResponseOf<'getAsset'>;
export type AssetService = ResponseOf<'listAssetServices'>[number];
export type InstalledSoftwarePage = ResponseOf<'listAssetSoftware'>;
export type InstalledSoftware = InstalledSoftwarePage['Items'][number];

export type TicketPage = ResponseOf<'listTickets'>;
export type Ticket = TicketPage['Items'][number];
export type TicketState = Ticket['State'];
export type Priority = Ticket['Priority'];
export type TicketDetail = ResponseOf<'getTicket'>;
export type TicketEvent = TicketDetail['Events'][number];
/** What happened to a finding or a ticket; only a finding's events carry a reason. */
export type HistoryEvent = FindingEvent | TicketEvent;

export type Settings = ResponseOf<'getSettings'>;
export type SlaDays = Settings['SlaDays'];

export type ImportPage = ResponseOf<'listImports'>;
export type Import = ResponseOf<'getImport'>;
export type ImportState = Import['State'];
export type ImportCounts = Import['Counts'];
/** Why a Completed import needs a look: it kept no finding, or skipped most of what it read. */
export type ImportAttention = NonNullable<Import['Attention']>;
export type ImportFormat = ResponseOf<'listImportFormats'>[number];

export type CveIntel = ResponseOf<'getCveIntel'>;
export type CvssAssessment = CveIntel['Cvss'][number];
export type CvssMetric = CvssAssessment['Metrics'][number];
export type IntelLoad = ResponseOf<'getIntelLoad'>;
export type IntelLoadState = IntelLoad['State'];
export type FeedName = IntelLoad['Feed'];
export type FeedStatus = ResponseOf<'getIntelFeedStatus'>;
export type IntelLoadList = ResponseOf<'listIntelLoads'>;

export type DemoLoaded = ResponseOf<'loadDemo'>;

export type SessionOrganization = Session['Organizations'][number];
export type InstallationOrganization = ResponseOf<'listInstallationOrganizations'>['Items'][number];
export type CreatedOrganization = ResponseOf<'createInstallationOrganization', 201>;
