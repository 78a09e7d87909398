import { BaseConfig } from '@platform/platform';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

/**
 * autostart-proxy's settings: BaseConfig's (PORT, DATABASE_URL, LOG_LEVEL, …) and its own, validated
 * at start. The managed services themselves are in the YAML file AUTOSTART_CONFIG names (README).
 */
export class AutostartProxyConfig extends BaseConfig {
  /** Path of the YAML file of managed services; read and checked at start, reloaded when it changes. */
  @IsOptional() @IsString()
  AUTOSTART_CONFIG?: string;

  /** A folder of custom waiting-page themes (`<name>.html`, Sablier's Go template syntax), checked at start. */
  @IsOptional() @IsString()
  AUTOSTART_THEMES_DIR?: string;

  /** How often the file is checked for changes (ms). */
  @IsInt() @Min(50) @Max(600_000)
  AUTOSTART_CONFIG_WATCH_MS: number = 2_000;

  /** Docker Engine API: unix:///var/run/docker.sock (default) or tcp://host:port. */
  @IsOptional() @IsString()
  DOCKER_HOST?: string;

  /** Non-empty: TLS to a tcp DOCKER_HOST, the daemon verified against DOCKER_CERT_PATH/ca.pem (the Docker CLI's variable). */
  @IsOptional() @IsString()
  DOCKER_TLS_VERIFY?: string;

  /** ca.pem, cert.pem, key.pem for DOCKER_TLS_VERIFY; default ~/.docker. */
  @IsOptional() @IsString()
  DOCKER_CERT_PATH?: string;

  /** Services declared by the workloads themselves: `docker` (container labels) or `kubernetes` (Deployment annotations), `autostart.*`. */
  @IsOptional() @IsIn(['docker', 'kubernetes', 'none'])
  AUTOSTART_DISCOVERY?: 'docker' | 'kubernetes' | 'none';

  /** How often discovery lists the labelled workloads again (ms); Docker events also trigger it at once. */
  @IsInt() @Min(100) @Max(3_600_000)
  AUTOSTART_DISCOVERY_MS: number = 30_000;

  /** Kubernetes: kubeconfig path(s); in-cluster (service account) when unset and KUBERNETES_SERVICE_HOST is set. */
  @IsOptional() @IsString()
  KUBECONFIG?: string;

  @IsOptional() @IsString()
  KUBERNETES_SERVICE_HOST?: string;

  /** How long an upstream may send nothing before a proxied request is abandoned (502 before headers). */
  @IsInt() @Min(100) @Max(86_400_000)
  AUTOSTART_PROXY_TIMEOUT_MS: number = 300_000;

  /** How long opening a connection to an upstream may take. */
  @IsInt() @Min(50) @Max(120_000)
  AUTOSTART_CONNECT_TIMEOUT_MS: number = 5_000;

  /** How often the idle check runs (ms): services past their idle timeout are stopped by one replica. */
  @IsInt() @Min(50) @Max(3_600_000)
  AUTOSTART_IDLE_CHECK_MS: number = 20_000;

  /**
   * A claimed idle stop that has not finished its service's stopTimeout (default 10 s) plus this
   * long (ms) is taken over by the next idle check of any replica: its replica was killed mid-stop.
   * Longer than an engine call may take (30 s), so a live replica's stop is never taken over.
   */
  @IsInt() @Min(100) @Max(3_600_000)
  AUTOSTART_STOP_LEASE_MS: number = 60_000;

  /** How often this replica writes last-activity times and request history to the database (ms). */
  @IsInt() @Min(50) @Max(60_000)
  AUTOSTART_FLUSH_MS: number = 2_000;

  /** While a start runs: how often the workload's health is checked (ms). */
  @IsInt() @Min(20) @Max(60_000)
  AUTOSTART_HEALTH_POLL_MS: number = 1_000;

  /** How long a probe of the service's health-check path may take (ms). */
  @IsInt() @Min(50) @Max(60_000)
  AUTOSTART_PROBE_TIMEOUT_MS: number = 2_000;

  /** Seconds between the waiting page's health polls. */
  @IsInt() @Min(1) @Max(300)
  AUTOSTART_REFRESH_SECONDS: number = 2;

  /** Days of request history kept. */
  @IsInt() @Min(1) @Max(3650)
  AUTOSTART_HISTORY_DAYS: number = 7;
}
