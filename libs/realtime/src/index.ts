export { RealtimeAdapter, useRealtime, connectionName, type RealtimeOptions } from './realtime-adapter';
