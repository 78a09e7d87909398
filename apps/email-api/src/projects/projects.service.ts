import { Injectable } from '@nestjs/common';
import { generateApiKey, hashApiKey } from '@platform/auth';
import { ApiError } from '@platform/errors';
import { AccountsService } from '../access/accounts.service';
import type { NewKeys, Project } from '../access/project';
import { projectNotFound, type ProjectContext } from '../access/project-access.guard';
import { ProjectDirectory } from '../access/project-directory.service';
import type { ProjectRole } from '../access/roles';
import { OPT_IN_OFF, type OptInSettings } from '../opt-in/opt-in-settings';
import { OptInSettingsService } from '../opt-in/opt-in-settings.service';
import { ProjectStatsRepository } from './project-stats.repository';

export function projectView(p: Project, role?: ProjectRole, doubleOptIn: OptInSettings = OPT_IN_OFF) {
  return {
    id: p.id,
    name: p.name,
    publicKey: p.publicKey,
    secretKeyHint: p.secretKeyHint,
    keysRotatedAt: p.keysRotatedAt,
    disabled: p.disabled,
    disabledReason: p.disabledReason,
    trackingEnabled: p.trackingEnabled,
    doubleOptIn: { enabled: doubleOptIn.enabled, templateId: doubleOptIn.templateId },
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    ...(role ? { role } : {}),
  };
}

function newKeys(): NewKeys & { secretKey: string } {
  const secretKey = generateApiKey('sk');
  return { publicKey: generateApiKey('pk'), secretKey, secretKeyHash: hashApiKey(secretKey), secretKeyHint: `sk_…${secretKey.slice(-4)}` };
}

@Injectable()
export class ProjectsService {
  constructor(
    private readonly projects: ProjectDirectory,
    private readonly users: AccountsService,
    private readonly stats: ProjectStatsRepository,
    private readonly optIn: OptInSettingsService,
  ) {}

  async list(userId: string) {
    const projects = await this.projects.listForMember(userId);
    const optIn = await this.optIn.getMany(projects.map((p) => p.id));
    return projects.map((p) => projectView(p, p.role, optIn.get(p.id)));
  }

  /** A new project owned by the user; the only answer that shows the secret key besides a rotation. */
  async create(userId: string, name: string) {
    const keys = newKeys();
    const project = await this.projects.create(name, userId, keys);
    return { ...projectView(project, 'OWNER'), secretKey: keys.secretKey };
  }

  /** `{name?, trackingEnabled?, doubleOptIn?}`: what is given changes (the double opt-in setting is checked first). */
  async update(ctx: ProjectContext, change: { name?: string; trackingEnabled?: boolean; doubleOptIn?: { enabled?: boolean; templateId?: string | null } }) {
    const optIn = change.doubleOptIn ? await this.optIn.configure(ctx.project.id, change.doubleOptIn) : await this.optIn.get(ctx.project.id);
    let project: Project | null = ctx.project;
    if (change.name !== undefined) project = await this.projects.rename(ctx.project.id, change.name);
    if (project && change.trackingEnabled !== undefined) project = await this.projects.setTracking(ctx.project.id, change.trackingEnabled);
    if (!project) throw projectNotFound();
    return projectView(project, ctx.role, optIn);
  }

  async delete(ctx: ProjectContext): Promise<void> {
    if (!(await this.projects.delete(ctx.project.id))) throw projectNotFound();
  }

  /** Both keys at once; the old ones stop working with this commit (keys are looked up per request, never cached). */
  async regenerateKeys(ctx: ProjectContext) {
    const keys = newKeys();
    const project = await this.projects.replaceKeys(ctx.project.id, keys);
    if (!project) throw projectNotFound();
    return { ...projectView(project, ctx.role, await this.optIn.get(ctx.project.id)), secretKey: keys.secretKey };
  }

  async security(ctx: ProjectContext) {
    const [counts, delivery] = await Promise.all([this.stats.counts(ctx.project.id), this.stats.deliveryLast30Days(ctx.project.id)]);
    const attempted = (delivery['SENT'] ?? 0) + (delivery['FAILED'] ?? 0);
    return {
      projectId: ctx.project.id,
      disabled: ctx.project.disabled,
      disabledReason: ctx.project.disabledReason,
      keys: { publicKey: ctx.project.publicKey, secretKeyHint: ctx.project.secretKeyHint, rotatedAt: ctx.project.keysRotatedAt },
      members: counts.members,
      owners: counts.owners,
      delivery30Days: { byStatus: delivery, attempted, failureRate: attempted ? Math.round(((delivery['FAILED'] ?? 0) * 10000) / attempted) / 100 : 0 },
    };
  }

  async reset(ctx: ProjectContext, confirm: string) {
    if (confirm !== ctx.project.name) {
      throw new ApiError(400, 'CONFIRMATION_MISMATCH', 'The confirmation does not match the project name', {
        suggestion: `Send {"confirm": "${ctx.project.name}"} to wipe every contact, event, email and job of this project. This cannot be undone.`,
      });
    }
    const deleted = await this.projects.wipeData(ctx.project.id);
    return { projectId: ctx.project.id, reset: true, deleted };
  }

  async setupState(ctx: ProjectContext) {
    const counts = await this.stats.counts(ctx.project.id);
    const steps = [
      { id: 'create_project', done: true },
      { id: 'add_contact', done: counts.contacts > 0 },
      { id: 'track_event', done: counts.events > 0 },
      { id: 'send_email', done: counts.emails > 0 },
      { id: 'invite_member', done: counts.members > 1 },
    ];
    return {
      projectId: ctx.project.id,
      hasContacts: counts.contacts > 0,
      hasEvents: counts.events > 0,
      hasSentEmail: counts.sentEmails > 0,
      hasQueuedEmail: counts.emails > 0,
      members: counts.members,
      steps,
      completed: steps.every((s) => s.done),
    };
  }

  listMembers(ctx: ProjectContext) {
    return this.projects.listMembers(ctx.project.id);
  }

  async addMember(ctx: ProjectContext, email: string, role: ProjectRole = 'MEMBER') {
    this.assertMayGrant(ctx, role);
    const user = await this.users.findByEmail(email);
    if (!user) throw new ApiError(404, 'USER_NOT_FOUND', 'No account with this email', { suggestion: 'Ask the person to sign up first (POST /auth/signup), then add them.' });
    if (!(await this.projects.addMember(ctx.project.id, user.id, role))) {
      throw new ApiError(409, 'ALREADY_MEMBER', 'This user is already a member of the project', { suggestion: 'Change their role with PATCH /projects/:id/members/:userId.' });
    }
    return (await this.projects.findMember(ctx.project.id, user.id))!;
  }

  async updateMember(ctx: ProjectContext, userId: string, role: ProjectRole) {
    const target = await this.projects.findMember(ctx.project.id, userId);
    if (!target) throw memberNotFound();
    this.assertMayGrant(ctx, role);
    if (target.role === 'OWNER') this.assertMayGrant(ctx, 'OWNER');
    const result = await this.projects.setRole(ctx.project.id, userId, role);
    if (result === 'missing') throw memberNotFound();
    if (result === 'last-owner') throw lastOwner();
    return (await this.projects.findMember(ctx.project.id, userId))!;
  }

  async removeMember(ctx: ProjectContext, userId: string): Promise<void> {
    const target = await this.projects.findMember(ctx.project.id, userId);
    if (!target) throw memberNotFound();
    const self = ctx.user?.id === userId;
    if (!self) {
      if (ctx.role && ctx.role === 'MEMBER') throw new ApiError(403, 'FORBIDDEN', 'Only owners and admins remove other members', { suggestion: 'Ask an owner or admin.' });
      if (target.role === 'OWNER') this.assertMayGrant(ctx, 'OWNER');
    }
    const result = await this.projects.removeMember(ctx.project.id, userId);
    if (result === 'missing') throw memberNotFound();
    if (result === 'last-owner') throw lastOwner();
  }

  /** Owners (and the secret key) may grant or touch OWNER; admins manage ADMIN and MEMBER; members nothing. */
  private assertMayGrant(ctx: ProjectContext, role: ProjectRole): void {
    if (!ctx.role) return;
    if (ctx.role === 'MEMBER' || (role === 'OWNER' && ctx.role !== 'OWNER')) {
      throw new ApiError(403, 'FORBIDDEN', `Your role (${ctx.role}) cannot ${role === 'OWNER' ? 'manage owners' : 'manage members'}`, {
        suggestion: 'Ask a project owner.',
      });
    }
  }
}

const memberNotFound = () => new ApiError(404, 'MEMBER_NOT_FOUND', 'This user is not a member of the project', { suggestion: 'List members with GET /projects/:id/members.' });
const lastOwner = () =>
  new ApiError(409, 'LAST_OWNER', 'A project needs at least one owner', { suggestion: 'Make another member OWNER first, or delete the project.' });
