export { hashPassword, verifyPassword } from './password';
export { generateApiKey, hashApiKey, safeEqual, verifyApiKey } from './api-key';
export { Public, Roles, CurrentUser, IS_PUBLIC_KEY, ROLES_KEY } from './decorators';
export { RolesGuard, type RoleBearer } from './roles.guard';
export { TokenAuthGuard, JwtBearerGuard, JwtCookieGuard, bearerToken, cookieValue, type GuardRequest } from './jwt-guard';
export { ApiKeyGuard } from './api-key.guard';
export {
  decodeJwt,
  verifyJwt,
  publicKeyFromJwk,
  JwtVerificationError,
  type JwsAlgorithm,
  type JwtHeader,
  type JwtClaims,
  type DecodedJwt,
  type ClaimChecks,
  type VerifyJwtOptions,
  type JwtVerificationKey,
} from './jwt-verify';
export { JwksVerifier, type JwksVerifierOptions } from './jwks-verifier';
export { assessRefreshToken, type RefreshTokenState, type RefreshVerdict } from './refresh-rotation';
