-- One database per service (ARCHITECTURE.md); each service creates its own schema inside it
-- through its migrations. Runs once, when the PostgreSQL volume is first initialised.
CREATE DATABASE automation;
CREATE DATABASE email;
CREATE DATABASE knowledge;
CREATE DATABASE auth;
CREATE DATABASE conversation;
CREATE DATABASE transcribe;
CREATE DATABASE autostart;
CREATE DATABASE logistics;
