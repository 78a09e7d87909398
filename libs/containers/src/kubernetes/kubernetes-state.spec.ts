import { isContainersError } from '../provider';
import { describeWorkload, parseKubernetesTarget, replicasToRestore, type ScalableWorkload } from './kubernetes-state';
import { thrown } from '../test/helpers';

describe('parseKubernetesTarget', () => {
  it.each([
    ['ml/whisper', { namespace: 'ml', kind: 'deployment', name: 'whisper' }],
    ['ml/deployment/whisper', { namespace: 'ml', kind: 'deployment', name: 'whisper' }],
    ['ml/deployments/whisper', { namespace: 'ml', kind: 'deployment', name: 'whisper' }],
    ['data/statefulset/db', { namespace: 'data', kind: 'statefulset', name: 'db' }],
    ['data/StatefulSet/db', { namespace: 'data', kind: 'statefulset', name: 'db' }],
    ['data/sts/db.primary', { namespace: 'data', kind: 'statefulset', name: 'db.primary' }],
  ])('%p', (target, expected) => expect(parseKubernetesTarget(target)).toEqual(expected));

  it.each([
    ['whisper', /expected namespace\/deployment/],
    ['a/b/c/d', /expected namespace\/deployment/],
    ['ml/daemonset/x', /kind 'daemonset' is not deployment or statefulset/],
    ['ML/x', /'ML' is not a valid namespace/],
    ['ml/Whisper', /'Whisper' is not a valid deployment name/],
    ['ml/-x', /not a valid deployment name/],
    ['/x', /not a valid namespace/],
  ])('refuses %p', (target, message) => {
    const error = thrown(() => parseKubernetesTarget(target));
    expect(isContainersError(error, 'INVALID_TARGET')).toBe(true);
    expect((error as Error).message).toMatch(message);
  });
});

describe('describeWorkload', () => {
  const probe = { template: { spec: { containers: [{ name: 'c', readinessProbe: {} }] } } };
  const w = (spec: ScalableWorkload['spec'], status: ScalableWorkload['status'] = {}): ScalableWorkload => ({ spec: { ...probe, ...spec }, status });

  it.each([
    ['scaled to 0, no pods', w({ replicas: 0 }), 'stopped', 'stopped'],
    ['scaled to 0, pods terminating', w({ replicas: 0 }, { replicas: 1 }), 'stopping', 'stopped'],
    ['pods created, none ready (zero counts omitted)', w({ replicas: 2 }, { replicas: 2 }), 'starting', 'starting'],
    ['some ready', w({ replicas: 2 }, { replicas: 2, readyReplicas: 1 }), 'starting', 'starting'],
    ['all ready', w({ replicas: 2 }, { replicas: 2, readyReplicas: 2 }), 'running', 'healthy'],
    ['replicas unset means 1', w({}, { replicas: 1, readyReplicas: 1 }), 'running', 'healthy'],
    ['ready without a readiness probe', { spec: { replicas: 1 }, status: { readyReplicas: 1 } }, 'running', 'none'],
    [
      'progress deadline exceeded',
      w({ replicas: 1 }, { replicas: 1, conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'timed out' }] }),
      'unhealthy',
      'unhealthy',
    ],
    [
      'replica failure',
      w({ replicas: 1 }, { conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'exceeded quota' }] }),
      'failed',
      'unhealthy',
    ],
  ])('%s → %s, %s', (_what, workload, state, health) => {
    const d = describeWorkload(workload as ScalableWorkload);
    expect(d.state).toBe(state);
    expect(d.health.status).toBe(health);
  });

  it('counts replicas from spec and status', () => {
    expect(describeWorkload(w({ replicas: 3 }, { replicas: 3, readyReplicas: 2 })).replicas).toEqual({ desired: 3, current: 3, ready: 2 });
  });

  it('gives the condition message as the reason', () => {
    const d = describeWorkload(w({ replicas: 1 }, { conditions: [{ type: 'ReplicaFailure', status: 'True', message: 'exceeded quota' }] }));
    expect(d).toMatchObject({ message: 'exceeded quota', health: { message: 'exceeded quota' } });
  });
});

describe('replicasToRestore', () => {
  it.each([
    [{ r: '3' }, 3],
    [{ r: '0' }, 2],
    [{ r: '-1' }, 2],
    [{ r: 'two' }, 2],
    [{ r: '1.5' }, 2],
    [{}, 2],
    [undefined, 2],
  ])('%p → %i', (annotations, expected) => expect(replicasToRestore(annotations, 'r', 2)).toBe(expected));
});
