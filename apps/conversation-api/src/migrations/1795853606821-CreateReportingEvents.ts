import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Analytics read a table of reporting events (Chatwoot's `reporting_events`), written in the same
 * transaction as the change they record by triggers on conversations and messages — whichever code
 * path makes the change (an agent, the snooze worker, a recipe) — instead of being recomputed from the
 * messages on each report:
 *
 * | name | when | value (seconds) | user |
 * |---|---|---|---|
 * | `conversation_created` | a conversation is created | – | its assignee |
 * | `conversation_resolved` | its status becomes `resolved` | since it was created | its assignee |
 * | `message_incoming` | a contact's message is stored | – | the assignee |
 * | `message_outgoing` | an agent's public reply is sent (pending → sent) | – | the sender |
 * | `first_response` | the first reply sent | since the conversation was created | the sender |
 * | `reply_time` | a later reply sent while the contact waited | since `waiting_since` | the sender |
 *
 * Each row keeps the conversation's channel and team at that time; labels are filtered through the
 * conversation. Existing conversations and messages are back-filled (creation, messages, first responses).
 */
export class CreateReportingEvents1795853606821 implements MigrationInterface {
  name = 'CreateReportingEvents1795853606821';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.reporting_events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id uuid NOT NULL,
        name text NOT NULL CHECK (name IN ('conversation_created', 'conversation_resolved', 'message_incoming', 'message_outgoing', 'first_response', 'reply_time')),
        value double precision,
        conversation_id uuid NOT NULL REFERENCES ${s}.conversations(id) ON DELETE CASCADE,
        channel_id uuid NOT NULL,
        team_id uuid,
        user_id uuid,
        occurred_at timestamptz NOT NULL
      );
      CREATE INDEX reporting_events_account_idx ON ${s}.reporting_events (account_id, name, occurred_at);
      CREATE INDEX reporting_events_user_idx ON ${s}.reporting_events (account_id, user_id, occurred_at) WHERE user_id IS NOT NULL;
      CREATE INDEX reporting_events_team_idx ON ${s}.reporting_events (account_id, team_id, occurred_at) WHERE team_id IS NOT NULL;
      CREATE INDEX reporting_events_conversation_idx ON ${s}.reporting_events (conversation_id);

      CREATE FUNCTION ${s}.report_conversation_change() RETURNS trigger LANGUAGE plpgsql AS \$fn\$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO ${s}.reporting_events (account_id, name, conversation_id, channel_id, team_id, user_id, occurred_at)
          VALUES (NEW.account_id, 'conversation_created', NEW.id, NEW.channel_id, NEW.team_id, NEW.assignee_id, NEW.created_at);
        ELSIF NEW.status = 'resolved' AND OLD.status IS DISTINCT FROM 'resolved' THEN
          INSERT INTO ${s}.reporting_events (account_id, name, value, conversation_id, channel_id, team_id, user_id, occurred_at)
          VALUES (NEW.account_id, 'conversation_resolved', extract(epoch FROM clock_timestamp() - NEW.created_at), NEW.id, NEW.channel_id, NEW.team_id, NEW.assignee_id, clock_timestamp());
        END IF;
        RETURN NULL;
      END \$fn\$;
      CREATE TRIGGER conversations_reporting AFTER INSERT OR UPDATE OF status ON ${s}.conversations
        FOR EACH ROW EXECUTE FUNCTION ${s}.report_conversation_change();

      CREATE FUNCTION ${s}.report_message_change() RETURNS trigger LANGUAGE plpgsql AS \$fn\$
      DECLARE c record;
      BEGIN
        IF TG_OP = 'INSERT' AND NEW.message_type = 'incoming' THEN
          SELECT team_id, assignee_id INTO c FROM ${s}.conversations WHERE id = NEW.conversation_id;
          INSERT INTO ${s}.reporting_events (account_id, name, conversation_id, channel_id, team_id, user_id, occurred_at)
          VALUES (NEW.account_id, 'message_incoming', NEW.conversation_id, NEW.channel_id, c.team_id, c.assignee_id, NEW.created_at);
        ELSIF TG_OP = 'UPDATE' AND NEW.message_type = 'outgoing' AND NOT NEW.private AND OLD.status = 'pending' AND NEW.status = 'sent' THEN
          SELECT created_at, team_id, waiting_since, first_reply_created_at INTO c FROM ${s}.conversations WHERE id = NEW.conversation_id;
          INSERT INTO ${s}.reporting_events (account_id, name, conversation_id, channel_id, team_id, user_id, occurred_at)
          VALUES (NEW.account_id, 'message_outgoing', NEW.conversation_id, NEW.channel_id, c.team_id, NEW.sender_id, NEW.created_at);
          IF c.first_reply_created_at IS NULL THEN
            INSERT INTO ${s}.reporting_events (account_id, name, value, conversation_id, channel_id, team_id, user_id, occurred_at)
            VALUES (NEW.account_id, 'first_response', greatest(0, extract(epoch FROM NEW.created_at - c.created_at)), NEW.conversation_id, NEW.channel_id, c.team_id, NEW.sender_id, NEW.created_at);
          ELSIF c.waiting_since IS NOT NULL AND c.waiting_since <= NEW.created_at THEN
            INSERT INTO ${s}.reporting_events (account_id, name, value, conversation_id, channel_id, team_id, user_id, occurred_at)
            VALUES (NEW.account_id, 'reply_time', extract(epoch FROM NEW.created_at - c.waiting_since), NEW.conversation_id, NEW.channel_id, c.team_id, NEW.sender_id, NEW.created_at);
          END IF;
        END IF;
        RETURN NULL;
      END \$fn\$;
      CREATE TRIGGER messages_reporting AFTER INSERT OR UPDATE OF status ON ${s}.messages
        FOR EACH ROW EXECUTE FUNCTION ${s}.report_message_change();

      INSERT INTO ${s}.reporting_events (account_id, name, conversation_id, channel_id, team_id, user_id, occurred_at)
        SELECT account_id, 'conversation_created', id, channel_id, team_id, assignee_id, created_at FROM ${s}.conversations;
      INSERT INTO ${s}.reporting_events (account_id, name, value, conversation_id, channel_id, team_id, user_id, occurred_at)
        SELECT account_id, 'first_response', greatest(0, extract(epoch FROM first_reply_created_at - created_at)), id, channel_id, team_id, assignee_id, first_reply_created_at
          FROM ${s}.conversations WHERE first_reply_created_at IS NOT NULL;
      INSERT INTO ${s}.reporting_events (account_id, name, conversation_id, channel_id, team_id, user_id, occurred_at)
        SELECT m.account_id, CASE m.message_type WHEN 'incoming' THEN 'message_incoming' ELSE 'message_outgoing' END, m.conversation_id, m.channel_id, v.team_id,
               CASE m.message_type WHEN 'incoming' THEN v.assignee_id ELSE m.sender_id END, m.created_at
          FROM ${s}.messages m JOIN ${s}.conversations v ON v.id = m.conversation_id
         WHERE m.message_type = 'incoming' OR (m.message_type = 'outgoing' AND NOT m.private AND m.status IN ('sent', 'delivered', 'read'));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      DROP TRIGGER IF EXISTS messages_reporting ON ${s}.messages;
      DROP TRIGGER IF EXISTS conversations_reporting ON ${s}.conversations;
      DROP FUNCTION IF EXISTS ${s}.report_message_change();
      DROP FUNCTION IF EXISTS ${s}.report_conversation_change();
      DROP TABLE IF EXISTS ${s}.reporting_events;
    `);
  }
}
