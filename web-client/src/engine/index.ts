export * from './position';
export * from './positionId';
export * from './movegen';
export * from './turn';
