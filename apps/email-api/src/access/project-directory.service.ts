import { Injectable } from '@nestjs/common';
import { MembersRepository } from './members.repository';
import type { Member, NewKeys, Project, ProjectWithRole } from './project';
import { ProjectsRepository } from './projects.repository';
import type { ProjectRole } from './roles';

/**
 * Projects, their keys and their members as records: for the access guards (a guard is built in
 * the module of the controller it guards, so it reaches the records through this exported
 * service), the features that manage them (the projects and users routes) and those that look a
 * project up by key (automation events). Calls join the caller's open transaction.
 */
@Injectable()
export class ProjectDirectory {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly members: MembersRepository,
  ) {}

  /** Looked up on every API request (keys are never cached). */
  findByPublicKey(publicKey: string): Promise<Project | null> {
    return this.projects.findByPublicKey(publicKey);
  }

  findBySecretKeyHash(hash: string): Promise<Project | null> {
    return this.projects.findBySecretKeyHash(hash);
  }

  /** The project with the user's role, or null when the user is not a member (or the project does not exist). */
  findForMember(projectId: string, userId: string): Promise<ProjectWithRole | null> {
    return this.projects.findForMember(projectId, userId);
  }

  listForMember(userId: string): Promise<ProjectWithRole[]> {
    return this.projects.listForMember(userId);
  }

  /** The project and its owner membership, in one transaction. */
  create(name: string, ownerId: string, keys: NewKeys): Promise<Project> {
    return this.projects.create(name, ownerId, keys);
  }

  rename(id: string, name: string): Promise<Project | null> {
    return this.projects.rename(id, name);
  }

  setTracking(id: string, enabled: boolean): Promise<Project | null> {
    return this.projects.setTracking(id, enabled);
  }

  trackingEnabled(id: string): Promise<boolean> {
    return this.projects.trackingEnabled(id);
  }

  /** Disables the project for review (sends and writes refused, reads and settings kept); false when it already was disabled. */
  pauseForReview(id: string, reason: string): Promise<boolean> {
    return this.projects.pause(id, reason);
  }

  /**
   * Disables the project with `reason` (billing's: sends and writes refused, reads, settings and
   * billing kept — the access guard's rule for every disabled project); a project disabled already
   * keeps its reason. Answers whether it was enabled.
   */
  disable(id: string, reason: string): Promise<boolean> {
    return this.projects.pause(id, reason);
  }

  /** Re-enables the project if it was disabled with a reason starting with `reasonPrefix` (never one paused for another reason). */
  enableIfDisabledFor(id: string, reasonPrefix: string): Promise<boolean> {
    return this.projects.resume(id, reasonPrefix);
  }

  exists(id: string): Promise<boolean> {
    return this.projects.exists(id);
  }

  delete(id: string): Promise<boolean> {
    return this.projects.delete(id);
  }

  /** Both keys at once: the old ones no longer match from this commit on. */
  replaceKeys(id: string, keys: NewKeys): Promise<Project | null> {
    return this.projects.replaceKeys(id, keys);
  }

  /** Deletes the project's data (contacts, events, emails, jobs, idempotency keys); keeps the project, keys and members. */
  wipeData(id: string): Promise<Record<string, number>> {
    return this.projects.wipeData(id);
  }

  listMembers(projectId: string): Promise<Member[]> {
    return this.members.list(projectId);
  }

  findMember(projectId: string, userId: string): Promise<Member | null> {
    return this.members.find(projectId, userId);
  }

  /** False when the user already is a member. */
  addMember(projectId: string, userId: string, role: ProjectRole): Promise<boolean> {
    return this.members.add(projectId, userId, role);
  }

  /** Refused ('last-owner') when it would leave the project without an owner. */
  setRole(projectId: string, userId: string, role: ProjectRole): Promise<'ok' | 'missing' | 'last-owner'> {
    return this.members.setRole(projectId, userId, role);
  }

  removeMember(projectId: string, userId: string): Promise<'ok' | 'missing' | 'last-owner'> {
    return this.members.remove(projectId, userId);
  }
}
