import { defineEvent } from './event-contract';

// The event catalogue (ARCHITECTURE.md, "Events"). Ids are strings on the wire whatever their
// column type in the producer's database (bigint ids do not survive JSON numbers).

/** Fields every automation-api event carries about the person and the rule. */
export interface AutomationContactRef {
  /** automation-api account (one connected business account). */
  accountId: string;
  /**
   * Public key (`pk_…`) of the email-api project that receives this account's contacts; null when
   * no project is linked (consumers then ignore the event).
   */
  emailPublicKey: string | null;
  /** Scoped id of the person on the social platform (IGSID). */
  igUserId: string;
  /** Handle of the person, when known. */
  igUsername: string | null;
  automationId: string;
  /** The automation run (one person going through one automation). */
  runId: string;
}

/** automation-api → email-api: the person answered the email gate with a valid address. */
export interface AutomationEmailCapturedData extends AutomationContactRef {
  /** Lower-cased email address. */
  email: string;
  /** Automation name, stored as contact data. */
  automationName: string | null;
  /** The automation's `tags`, which the contact receives. */
  tags: string[];
}

/** automation-api → email-api: the DM with the link button went out. */
export interface AutomationLinkSentData extends AutomationContactRef {
  /** Email of the person if the service knows it (email gate or earlier capture), else null. */
  email: string | null;
  /** Target URL of the link button. */
  linkUrl: string;
  /** Whether clicks go through the service's own redirect. */
  tracked: boolean;
}

/** automation-api → email-api: the person opened the link through the click-tracking redirect. */
export interface AutomationLinkClickedData extends AutomationContactRef {
  email: string | null;
  linkUrl: string;
  /** Position of the clicked button: 0 the main link, 1 and 2 the extra links. */
  linkIndex: number;
  /** True for the first click of this run. */
  firstClick: boolean;
}

/** email-api → email-api workers: an event was tracked for a contact (POST /v1/track and friends). */
export interface EmailEventTrackedData {
  projectId: string;
  contactId: string;
  email: string;
  /** Event name, e.g. `email_captured`. */
  event: string;
  /** Id of the stored event record (`evt_…`). */
  eventId: string;
  /** Free-form event properties, if any. */
  properties: Record<string, unknown> | null;
  /** True when the contact was created by this event. */
  contactCreated: boolean;
}

/** email-api → email-api workers: the next batch of a sending campaign's recipients is due. */
export interface EmailCampaignBatchData {
  projectId: string;
  campaignId: string;
  /** Batch number (1 for the first); the cursor itself is kept on the campaign row. */
  batch: number;
}

export type TranscriptionStatus = 'finished' | 'failed';

/** transcribe-api → any: a transcription job reached a final state. */
export interface TranscribeJobFinishedData {
  jobId: string;
  status: TranscriptionStatus;
  /** `transcription` (higher-quality engine) or `faster-whisper-transcription` (faster engine). */
  queue: string;
  /** Engine that ran the job, e.g. `whisper` or `faster-whisper`. */
  engine: string;
  /** Length of the transcript in characters; 0 on failure. */
  textLength: number;
  /** Detected or requested language, when known. */
  language: string | null;
  /** Audio duration in seconds, when known. */
  durationSeconds: number | null;
  /** Failure reason when status is `failed`. */
  error: string | null;
}

/** logistics-hooks → its websocket fan-out on every replica: a new (or re-seen) error report. */
export interface LogisticsErrorReportedData {
  errorId: string;
  /** Workflow or system that reported the error. */
  source: string;
  message: string;
  severity: string | null;
  /** How often this (deduplicated) error has been seen. */
  occurrences: number;
  /** False when the report matched an existing record (count increased). */
  isNew: boolean;
  reportedAt: string;
}

/** Why a logistics session was revoked. */
export type AuthSessionRevokedReason = 'logout' | 'reuse_detected';

/**
 * auth-api → logistics-hooks: a logistics-realm session (refresh-token family) was
 * revoked, by logout or because a used-up refresh token was presented again. Services that verify
 * access tokens by signature (JWKS) refuse tokens whose `sid` claim is `sessionId` from now on,
 * instead of accepting them until they expire (at most 1 hour after `revokedAt`).
 */
export interface AuthSessionRevokedData {
  /** The `sid` claim of the session's access tokens (uuid of the refresh-token family). */
  sessionId: string;
  /** Logistics user id (uuid, the tokens' `sub`). */
  userId: string;
  email: string;
  reason: AuthSessionRevokedReason;
  /** When the session was revoked (ISO 8601). */
  revokedAt: string;
}

/** auth-api → logistics-hooks (planned): a user was created in one of auth-api's realms. */
export interface AuthUserCreatedData {
  /** `fiscal` (part B login API) or `logistics` (part G). */
  realm: 'fiscal' | 'logistics';
  /** Fiscal: the integer id as a string; logistics: the uuid. */
  userId: string;
  /** Lower-cased email address. */
  email: string;
  /** Fiscal: free-form (`user`, `admin`, …); logistics: admin, terminal_operator, driver or company_manager. */
  role: string;
  /** ISO 8601. */
  createdAt: string;
}

/** knowledge-api → any: a source was crawled, uploaded or refreshed (added: first stored; updated: stored again or edited). */
export interface KnowledgeSourceData {
  /** `<host>-<8 hex>` for a crawl, `file:<name>` for an upload (knowledge-api README, source ids). */
  sourceId: string;
  title: string;
  sourceType: 'url' | 'file';
  knowledgeType: 'technical' | 'business' | 'general';
  /** the crawled URL, or `file://<name>` */
  url: string | null;
  /** chunks stored by this crawl or upload (0 for an edit) */
  chunksStored: number;
}

/** email-api → any: a mail for one of a project's verified domains was received and stored. */
export interface EmailReceivedData {
  projectId: string;
  /** The stored message (GET /inbound/{id} of email-api). */
  inboundId: string;
  /** The Message-ID header, without angle brackets; null when the mail had none. */
  messageId: string | null;
  /** The sent mail this replies to (`eml_…`, from In-Reply-To or References), else null. */
  inReplyToEmailId: string | null;
  /** The From address, lower-cased; null when the header held none. */
  from: string | null;
  /** The envelope recipients on the project's domains. */
  to: string[];
  subject: string | null;
  /** Verdicts of the inbound checks: `pass`, `fail`, `none`, `neutral`, `softfail`, `temperror`, `permerror`. */
  authentication: { spf: string; dkim: string; dmarc: string };
  /** ISO 8601. */
  receivedAt: string;
}

/**
 * logistics-hooks → any: the model refined a task the rules had classified when its email arrived
 * (emitted through the outbox in the transaction that updates the task).
 */
export interface LogisticsTaskClassifiedData {
  taskId: string;
  priority: string;
  category: string;
  sentiment: string;
  /** `model`: the model's answer changed the task; `rules`: nothing of it was usable, the rules' stand. */
  classifiedBy: 'model' | 'rules';
  previous: { priority: string; category: string; sentiment: string };
}

/**
 * logistics-hooks → its webhook consumer: an arrival-notice audit scored below the threshold. The
 * data is the notification body posted to the operator's webhook, as it is posted.
 */
export interface LogisticsAuditFlaggedData {
  event: 'an_audit.low_score';
  audit_id: string;
  shipment_ref: string | null;
  outcome: string;
  score: number;
  threshold: number;
  failed_checks: { name: string; stop_processing: boolean; message: string }[];
  audited_at: string;
}

/** Why the sockets of a session, a user or a role's holders must go (conversation-api). */
export type ConversationSocketsEndedReason = 'logout' | 'refresh_reuse' | 'deactivated' | 'password_reset' | 'role_changed' | 'user_inactive' | 'channels_changed';

/**
 * conversation-api → its realtime consumer on every replica: what a socket was authenticated with no
 * longer holds (raised through the outbox in the transaction that revokes or changes the access).
 */
export interface ConversationAccessEndedData {
  /** `session`: one session (refresh-token family); `user`: every session of a user; `role`: every holder of a role. */
  scope: 'session' | 'user' | 'role';
  id: string;
  reason: ConversationSocketsEndedReason;
}

/** The chain of recipe actions that led to a conversation event: none for a person's or a contact's doing. */
export interface ConversationEventOrigin {
  /** The recipes whose actions led here, first to last. */
  recipeIds: string[];
  /** How many recipe runs led here (the length of the chain). */
  depth: number;
}

/** conversation-api → its recipes consumer: a conversation changed (raised in the transaction of the change). */
export interface ConversationEventData {
  accountId: string;
  conversationId: string;
  channelId: string;
  /** message_created: the message (its text cut to 4096 characters). */
  message?: { id: string; type: 'incoming' | 'outgoing'; content: string | null; contentType: string };
  /** status_changed: the status before and after; assignee_changed: the assignee before and after. */
  from?: string | null;
  to?: string | null;
  origin: ConversationEventOrigin | null;
}

export const AutomationEmailCaptured = defineEvent<AutomationEmailCapturedData>('automation.email_captured');
export const AutomationLinkSent = defineEvent<AutomationLinkSentData>('automation.link_sent');
export const AutomationLinkClicked = defineEvent<AutomationLinkClickedData>('automation.link_clicked');
export const EmailEventTracked = defineEvent<EmailEventTrackedData>('email.event_tracked');
/** email-api's own work queue (producer and consumer are email-api); not in ARCHITECTURE.md's table, so not in `eventCatalogue`. */
export const EmailCampaignBatch = defineEvent<EmailCampaignBatchData>('email.campaign_batch');
export const TranscribeJobFinished = defineEvent<TranscribeJobFinishedData>('transcribe.job_finished');
export const LogisticsErrorReported = defineEvent<LogisticsErrorReportedData>('logistics.error_reported');
export const AuthSessionRevoked = defineEvent<AuthSessionRevokedData>('auth.session_revoked');
export const AuthUserCreated = defineEvent<AuthUserCreatedData>('auth.user_created');
export const EmailReceived = defineEvent<EmailReceivedData>('email.received');
/** logistics-hooks' own events (not in ARCHITECTURE.md's table, so not in `eventCatalogue`). */
export const LogisticsTaskClassified = defineEvent<LogisticsTaskClassifiedData>('logistics.task_classified');
export const LogisticsAuditFlagged = defineEvent<LogisticsAuditFlaggedData>('logistics.audit_flagged');
/** conversation-api's own events (not in ARCHITECTURE.md's table, so not in `eventCatalogue`). */
export const ConversationAccessEnded = defineEvent<ConversationAccessEndedData>('conversation.access_ended');
export const ConversationMessageCreated = defineEvent<ConversationEventData>('conversation.message_created');
export const ConversationCreated = defineEvent<ConversationEventData>('conversation.created');
export const ConversationStatusChanged = defineEvent<ConversationEventData>('conversation.status_changed');
export const ConversationAssigneeChanged = defineEvent<ConversationEventData>('conversation.assignee_changed');
export const KnowledgeSourceAdded = defineEvent<KnowledgeSourceData>('knowledge.source_added');
export const KnowledgeSourceUpdated = defineEvent<KnowledgeSourceData>('knowledge.source_updated');

/** Every contract of the catalogue (README lists producers and consumers). */
export const eventCatalogue = [
  AutomationEmailCaptured,
  AutomationLinkSent,
  AutomationLinkClicked,
  EmailEventTracked,
  TranscribeJobFinished,
  LogisticsErrorReported,
  AuthSessionRevoked,
  AuthUserCreated,
  EmailReceived,
  KnowledgeSourceAdded,
  KnowledgeSourceUpdated,
] as const;
