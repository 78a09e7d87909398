import { schemaOf } from '@platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts (tenants), users, roles, teams, sessions, channels, contacts, conversations and messages. */
export class CreateConversationTables1795511100000 implements MigrationInterface {
  name = 'CreateConversationTables1795511100000';

  async up(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    await q.query(`
      CREATE TABLE ${s}.accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        last_display_id integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ${s}.roles (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        permissions text[] NOT NULL DEFAULT '{}',
        built_in boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, name)
      );
      CREATE TABLE ${s}.users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        email text NOT NULL,
        name text NOT NULL,
        password_hash text NOT NULL,
        role_id uuid NOT NULL REFERENCES ${s}.roles(id),
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX users_email_key ON ${s}.users (lower(email));
      CREATE INDEX users_account_idx ON ${s}.users (account_id);
      CREATE TABLE ${s}.teams (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, name)
      );
      CREATE TABLE ${s}.team_members (
        team_id uuid NOT NULL REFERENCES ${s}.teams(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES ${s}.users(id) ON DELETE CASCADE,
        PRIMARY KEY (team_id, user_id)
      );
      CREATE TABLE ${s}.refresh_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        family_id uuid NOT NULL,
        user_id uuid NOT NULL REFERENCES ${s}.users(id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX refresh_tokens_family_idx ON ${s}.refresh_tokens (family_id);
      CREATE TABLE ${s}.password_resets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES ${s}.users(id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ${s}.outgoing_mails (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        kind text NOT NULL,
        to_email text NOT NULL,
        subject text NOT NULL,
        body text NOT NULL,
        status text NOT NULL CHECK (status IN ('sent', 'unsent', 'failed')),
        error text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ${s}.channels (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('whatsapp')),
        name text NOT NULL,
        phone_number text,
        phone_number_id text NOT NULL,
        business_account_id text,
        credentials text NOT NULL,
        auto_assignment boolean NOT NULL DEFAULT false,
        assignment_cap integer,
        team_id uuid REFERENCES ${s}.teams(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX channels_account_idx ON ${s}.channels (account_id);
      CREATE TABLE ${s}.channel_members (
        channel_id uuid NOT NULL REFERENCES ${s}.channels(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES ${s}.users(id) ON DELETE CASCADE,
        last_assigned_at timestamptz,
        PRIMARY KEY (channel_id, user_id)
      );
      CREATE TABLE ${s}.attribute_definitions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        key text NOT NULL,
        display_name text NOT NULL,
        type text NOT NULL CHECK (type IN ('text', 'number', 'boolean', 'date', 'list', 'link')),
        values text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, key)
      );
      CREATE TABLE ${s}.contacts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        name text,
        email text,
        phone text,
        identifier text,
        custom_attributes jsonb NOT NULL DEFAULT '{}',
        additional_attributes jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX contacts_account_idx ON ${s}.contacts (account_id, created_at DESC);
      CREATE TABLE ${s}.contact_inboxes (
        contact_id uuid NOT NULL REFERENCES ${s}.contacts(id) ON DELETE CASCADE,
        channel_id uuid NOT NULL REFERENCES ${s}.channels(id) ON DELETE CASCADE,
        source_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (channel_id, source_id)
      );
      CREATE TABLE ${s}.conversations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES ${s}.accounts(id) ON DELETE CASCADE,
        display_id integer NOT NULL,
        channel_id uuid NOT NULL REFERENCES ${s}.channels(id) ON DELETE CASCADE,
        contact_id uuid NOT NULL REFERENCES ${s}.contacts(id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'pending', 'snoozed', 'resolved')),
        priority text CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
        assignee_id uuid REFERENCES ${s}.users(id) ON DELETE SET NULL,
        team_id uuid REFERENCES ${s}.teams(id) ON DELETE SET NULL,
        labels text[] NOT NULL DEFAULT '{}',
        snoozed_until timestamptz,
        waiting_since timestamptz,
        first_reply_created_at timestamptz,
        last_activity_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, display_id)
      );
      CREATE INDEX conversations_list_idx ON ${s}.conversations (account_id, status, last_activity_at DESC);
      CREATE INDEX conversations_contact_idx ON ${s}.conversations (contact_id);
      CREATE INDEX conversations_assignee_idx ON ${s}.conversations (assignee_id) WHERE status = 'open';
      CREATE TABLE ${s}.messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL,
        conversation_id uuid NOT NULL REFERENCES ${s}.conversations(id) ON DELETE CASCADE,
        channel_id uuid NOT NULL,
        message_type text NOT NULL CHECK (message_type IN ('incoming', 'outgoing', 'activity')),
        content text,
        content_type text NOT NULL DEFAULT 'text',
        private boolean NOT NULL DEFAULT false,
        status text NOT NULL DEFAULT 'sent' CHECK (status IN ('pending', 'sent', 'delivered', 'read', 'failed')),
        source_id text,
        sender_type text CHECK (sender_type IN ('contact', 'user')),
        sender_id uuid,
        attachments jsonb NOT NULL DEFAULT '[]',
        error text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX messages_conversation_idx ON ${s}.messages (conversation_id, created_at);
      CREATE UNIQUE INDEX messages_source_key ON ${s}.messages (channel_id, source_id) WHERE source_id IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = schemaOf(q);
    for (const table of ['messages', 'conversations', 'contact_inboxes', 'contacts', 'attribute_definitions', 'channel_members', 'channels', 'outgoing_mails', 'password_resets', 'refresh_tokens', 'team_members', 'teams', 'users', 'roles', 'accounts']) {
      await q.query(`DROP TABLE IF EXISTS ${s}.${table}`);
    }
  }
}
