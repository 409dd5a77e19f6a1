export * from './bytes';
export * from './scheme';
export * from './chain';
export * from './secretStore';
