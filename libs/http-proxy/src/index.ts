export { ProxyEngine, unavailableBody, type ProxyEngineOptions, type ProxyOutcome, type ProxyTarget } from './proxy-engine';
export { stripHopByHop, upstreamRequestHeaders, type ForwardedInfo } from './headers';
export { takeOverServer, type ServerRoutes, type TakeOverOptions } from './take-over-server';
export { ListenerFaults, failResponse, failSocket, LISTENER_FAULTS_METRIC, type FaultSite, type ListenerFaultsOptions } from './listener-faults';
