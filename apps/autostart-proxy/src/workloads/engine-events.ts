// Which managed services a Docker container event concerns: plain functions, no I/O.
import { parseDockerTarget, type ContainerEvent } from '@platform/containers';
import type { ManagedService } from '../catalog/catalog';

/** What an event means for the services it concerns. */
export type EventEffect = 'stopped' | 'started' | 'none';

export function effectOf(action: string): EventEffect {
  if (action === 'die' || action === 'destroy' || action === 'stop') return 'stopped';
  if (action === 'start' || action === 'unpause') return 'started';
  return 'none';
}

/** The Docker services whose target names the event's container (by name or id, or by the target's label). */
export function servicesOfEvent(services: readonly ManagedService[], event: ContainerEvent): ManagedService[] {
  return services.filter((s) => {
    if (s.provider !== 'docker') return false;
    let target;
    try {
      target = parseDockerTarget(s.target);
    } catch {
      return false;
    }
    if (target.kind === 'name') return target.name === event.name || (target.name.length >= 12 && event.id.startsWith(target.name));
    const [key, ...rest] = target.label.split('=');
    const value = event.labels[key];
    return rest.length > 0 ? value === rest.join('=') : value !== undefined;
  });
}
