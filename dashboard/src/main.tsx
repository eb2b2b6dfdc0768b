import { render } from 'preact';
import { App } from './app.tsx';
import { linkClick } from './router.ts';
import './styles.css';

// In-app links navigate without a reload (one listener for every <a> the pages render).
document.addEventListener('click', linkClick);

const root = document.getElementById('app');
if (root) render(<App />, root);
