import { Global, Module, type DynamicModule } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AuthApiConfig } from '../config';
import { JwksController } from './jwks.controller';
import { developmentKeyFile, JWT_ALGORITHM, SigningKeys } from './signing-keys';

/** Loads the signing key (env in production, a generated file in development) and configures @nestjs/jwt with it. */
export function loadSigningKeys(config: AuthApiConfig): SigningKeys {
  if (config.AUTH_JWT_PRIVATE_KEY) return SigningKeys.fromPem(config.AUTH_JWT_PRIVATE_KEY);
  return SigningKeys.fromFile(developmentKeyFile(config.DATA_DIR));
}

@Global()
@Module({})
export class KeysModule {
  static forRoot(keys: SigningKeys): DynamicModule {
    return {
      module: KeysModule,
      imports: [
        JwtModule.register({
          privateKey: keys.privateKeyPem,
          publicKey: keys.publicKeyPem,
          signOptions: { algorithm: JWT_ALGORITHM, keyid: keys.kid },
          verifyOptions: { algorithms: [JWT_ALGORITHM] },
        }),
      ],
      controllers: [JwksController],
      providers: [{ provide: SigningKeys, useValue: keys }],
      exports: [SigningKeys, JwtModule],
    };
  }
}
