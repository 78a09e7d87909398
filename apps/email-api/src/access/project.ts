import type { ProjectRole } from './roles';

export interface Project {
  id: string;
  name: string;
  publicKey: string;
  secretKeyHint: string;
  keysRotatedAt: Date;
  disabled: boolean;
  disabledReason: string | null;
  /** Open and click tracking of the project's mail (the pixel and rewritten links). */
  trackingEnabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface ProjectWithRole extends Project {
  role: ProjectRole;
}

export interface NewKeys {
  publicKey: string;
  secretKeyHash: string;
  secretKeyHint: string;
}

/** A member of a project, with the user's email and name. */
export interface Member {
  userId: string;
  email: string;
  name: string | null;
  role: ProjectRole;
  createdAt: Date;
}
