import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

// jsdom has no canvas: charts render their data tables only (components/Chart.tsx checks for a 2D context).
HTMLCanvasElement.prototype.getContext = (() => null) as never;

afterEach(() => cleanup());
