import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * What the service itself sent in answer to a comment (public reply or private reply). Distinguishes
 * the service's replies from another tool's (Comment.answered_by) and guards the platform's rule of
 * one private reply per comment across all automations (unique account_id, comment_id, kind).
 */
@Entity({ name: 'comment_replies' })
export class CommentReplyEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'int' })
  account_id: number;

  @Column({ type: 'text' })
  comment_id: string;

  @Column({ type: 'text', nullable: true })
  media_id: string | null;

  /** `public_reply` or `private_reply`. */
  @Column({ type: 'text' })
  kind: 'public_reply' | 'private_reply';

  /** Id of the public reply comment or of the message. */
  @Column({ type: 'text', nullable: true })
  reply_id: string | null;

  @Column({ type: 'bigint', nullable: true })
  run_id: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;
}
