export * from './position';
export * from './positionId';
export * from './movegen';
export * from './turn';
export * from './seat';
export * from './notation';
